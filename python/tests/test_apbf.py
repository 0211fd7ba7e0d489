"""bfopt.apbf reproduces `bfopt model apbf|apbbf` / `bfopt optimize apbf`."""

import pytest

import bfopt
import bfopt.apbf


def test_optimized_design_meets_its_budgets():
    d = bfopt.apbf.optimize(fp=0.001, window=100_000, max_accesses=16, max_npws=0.1)
    assert d.fp <= 0.001 and d.npws <= 0.1
    assert d.accesses_fp <= 16


def test_accesses_nothing_meets_is_infeasible():
    with pytest.raises(bfopt.Infeasible) as info:
        bfopt.apbf.optimize(fp=0.001, window=100_000, max_accesses=6)
    assert "max_accesses" in info.value.binding
    assert "accesses" in info.value.achievable


@pytest.mark.parametrize(
    "func,kwargs,parameter",
    [
        ("model", dict(hashes=0, extra_slices=7), "hashes"),
        ("model", dict(hashes=3, extra_slices=0), "extra_slices"),
        ("model", dict(hashes=3, extra_slices=2, window=-5), "window"),
        ("model", dict(hashes=3, extra_slices=2, window=10, slice_bits=64), "window"),
        ("model", dict(hashes=3, extra_slices=2, block_bits=100, block_hashes=4), "block_bits"),
        ("optimize", dict(fp=1.0, window=1000), "fp"),
        ("optimize", dict(fp=0.01, window=0), "window"),
        ("optimize", dict(fp=0.01, window=1000, max_npws=-1), "max_npws"),
    ],
)
def test_invalid_parameters(func, kwargs, parameter):
    with pytest.raises(bfopt.InvalidParameter) as info:
        getattr(bfopt.apbf, func)(**kwargs)
    assert info.value.parameter == parameter
    assert info.value.value and info.value.allowed


def test_budget_nothing_meets_is_infeasible():
    with pytest.raises(bfopt.Infeasible) as info:
        bfopt.apbf.optimize(fp=1e-6, window=1_000_000, memory=1000)
    assert info.value.binding
