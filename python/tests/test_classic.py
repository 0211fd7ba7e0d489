"""bfopt.classic reproduces `bfopt model classic` / `bfopt optimize classic`."""

import pytest

import bfopt
import bfopt.classic
from cases import CLASSIC


@pytest.mark.parametrize("name,verb,flags,func,kwargs", CLASSIC, ids=[c[0] for c in CLASSIC])
def test_numbers_equal_cli(cli, name, verb, flags, func, kwargs):
    expected = cli(name, flags, verb)
    got = getattr(bfopt.classic, func)(**kwargs)
    cli_params, cli_metrics = expected["params"], dict(expected["metrics"])
    # The CLI's sizing rows lead with bits and hashes (and its capacity row with the
    # capacity); here they are the params `m`, `k` (and `n`).
    m = cli_metrics.pop("bits", cli_params.get("m"))
    k = cli_metrics.pop("hashes", cli_params.get("k"))
    n = cli_metrics.pop("capacity", cli_params.get("n"))
    assert (got["params"]["m"], got["params"]["k"], got["params"]["n"]) == (m, k, n)
    assert got["params"]["layout"] == cli_params["layout"]
    assert got["metrics"] == cli_metrics
    if "fp_target" in cli_params:
        assert got["fp_target"] == cli_params["fp_target"]
    if "capacity" in expected["metrics"]:
        assert got["capacity"] == expected["metrics"]["capacity"]


def test_sized_filter_meets_its_target():
    d = bfopt.classic.optimize(fp=0.001, items=50_000, layout="blocked")
    assert d["metrics"]["fp"] <= 0.001
    assert d["params"]["block_bits"] == 512 and d["params"]["m"] % 512 == 0


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
