"""bfopt.classic beyond the CLI equality of test_families.py: targets met, errors named."""

import pytest

import bfopt
import bfopt.classic


def test_sized_filter_meets_its_target():
    d = bfopt.classic.optimize(fp=0.001, items=50_000, layout="blocked")
    assert d.fp <= 0.001
    assert d.params["block_bits"] == 512 and d.bits % 512 == 0


@pytest.mark.parametrize(
    "func,kwargs,parameter,value",
    [
        ("model", dict(bits=0, hashes=7, items=10), "bits", "0"),
        ("model", dict(bits=100, hashes=0, items=10), "hashes", "0"),
        ("model", dict(bits=100, hashes=2**40, items=10), "hashes", str(2**40)),
        ("model", dict(bits=100, hashes=3, items=-1), "items", "-1"),
        ("model", dict(bits=100, hashes=3, items=10, layout="ring"), "layout", "ring"),
        ("model", dict(bits=1000, hashes=3, items=10, layout="blocked", block_bits=100), "block_bits", "100"),
        ("model", dict(bits=1000, hashes=3, items=10, block_bits=512), "block_bits", "512"),
        ("optimize", dict(fp=2.0, items=10), "fp", "2"),
        ("optimize", dict(fp=0.01, items=10, max_hashes=0), "max_hashes", "0"),
        ("optimize", dict(fp=0.01), "fp/items/bits/hashes", "this combination"),
    ],
)
def test_invalid_parameters(func, kwargs, parameter, value):
    with pytest.raises(bfopt.InvalidParameter) as info:
        getattr(bfopt.classic, func)(**kwargs)
    assert (info.value.parameter, info.value.value) == (parameter, value)
    assert info.value.allowed


def test_no_capacity_is_infeasible():
    with pytest.raises(bfopt.Infeasible) as info:
        bfopt.classic.optimize(bits=64, hashes=8, fp=1e-12)
    assert info.value.binding
