"""bfopt.apbf reproduces `bfopt model apbf|apbbf` / `bfopt optimize apbf`."""

import pytest

import bfopt
import bfopt.apbf
from cases import APBF


def rows(cli_json):
    """The CLI prints one row as an object and several (--all) as a list."""
    return cli_json if isinstance(cli_json, list) else [cli_json]


@pytest.mark.parametrize("name,verb,flags,func,kwargs", APBF, ids=[c[0] for c in APBF])
def test_numbers_equal_cli(cli, name, verb, flags, func, kwargs):
    expected = cli(name, flags, verb)
    got = getattr(bfopt.apbf, func)(**kwargs)
    if func == "model":
        assert got == {"params": expected["params"], "metrics": expected["metrics"]}
        return
    got = got if isinstance(got, list) else [got]
    expected = rows(expected)
    assert len(got) == len(expected) >= 1
    for g, e in zip(got, expected):
        metrics = e["metrics"]
        assert (g["k"], g["l"], g["binding"]) == (metrics["k"], metrics["l"], metrics["binding"])
        assert g["structure"] == e["params"]["structure"]
        shared = set(g["metrics"]) & set(metrics)
        assert {"fp", "total_bits", "bits_per_item", "window", "npws"} <= shared
        assert {x: g["metrics"][x] for x in shared} == {x: metrics[x] for x in shared}
        assert g.get("default", True) == metrics["default"]


def test_optimized_design_meets_its_budgets():
    d = bfopt.apbf.optimize(fp=0.001, window=100_000, max_accesses=16, max_npws=0.1)
    assert d["metrics"]["fp"] <= 0.001 and d["metrics"]["npws"] <= 0.1
    assert d["metrics"]["accesses_fp"] <= 16


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
        ("model", dict(hashes=3, extra_slices=2, window=10, slice_bits=64), "slice_bits"),
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
