"""Every family function reproduces its CLI verb: `to_dict()` equals the JSON of
`bfopt VERB FAMILY ... --format json` (keyword arguments named like the flags), and each
metric and parameter of the row is an attribute of the typed result."""

import ast
import copy
import functools
import keyword
import math
import pathlib
import pickle

import pytest

import bfopt
from cases import FAMILY_CASES, TRACE
from conftest import portable, ticks_while

# CLI families served by another module's function.
MODULES = {"apbbf": "apbf", "pbf-bound": "pbf"}
# The result class of each function.
CLASSES = {"model": "Model", "optimize": "Optimum", "posterior": "Posterior",
           "simulate": "Simulation", "bound": "Bound"}


@functools.lru_cache(maxsize=None)
def declared(module, cls):
    """The attributes the stub `bfopt/<module>.pyi` declares for `cls`."""
    stub = pathlib.Path(bfopt.__file__).parent / f"{module}.pyi"
    for node in ast.parse(stub.read_text()).body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return frozenset(n.target.id for n in node.body if isinstance(n, ast.AnnAssign))
    return frozenset()


@pytest.mark.parametrize("name,verb,flags,func,kwargs", FAMILY_CASES,
                         ids=[c[0] for c in FAMILY_CASES])
def test_numbers_equal_cli(cli, name, verb, flags, func, kwargs):
    expected = cli(name, flags, verb)
    module = getattr(bfopt, MODULES.get(verb[1], verb[1]))
    got = getattr(module, func)(**kwargs)
    if isinstance(expected, list):
        assert isinstance(got, bfopt.Results)
        assert [portable(r) for r in got.to_dict()] == [portable(r) for r in expected]
        rows = list(got)
    else:
        assert portable(got.to_dict()) == portable(expected)
        rows = [got]
    stubbed = declared(module.__name__.split(".")[-1], CLASSES[func])
    for row in rows:
        assert type(row) is getattr(module, CLASSES[func])
        names = {k for k in (*row.params, *row.metrics) if not keyword.iskeyword(k)}
        missing = names - stubbed
        assert not missing, f"not in the stub (run tests/make_stubs.py): {sorted(missing)}"
        assert isinstance(row, bfopt.Result)
        assert row.family == row.to_dict()["family"]
        for key, value in row.metrics.items():
            assert getattr(row, key) == value or (value != value and math.isnan(getattr(row, key)))
        for key, value in row.params.items():
            if key not in row.metrics:
                assert getattr(row, key) == value


def test_results_are_read_only_and_name_missing_attributes():
    r = bfopt.classic.model(bits=1000, hashes=3, items=100)
    with pytest.raises(AttributeError):
        r.fp = 0.5
    with pytest.raises(AttributeError) as info:
        r.no_such_metric
    assert "no_such_metric" in str(info.value)
    assert "fp" in dir(r) and "fp" in repr(r)
    d = r.to_dict()
    d["metrics"]["fp"] = 2.0
    assert r.fp != 2.0, "to_dict() is a copy"
    again = pickle.loads(pickle.dumps(r))
    assert type(again) is bfopt.classic.Model and again == r and again.fp == r.fp
    assert copy.deepcopy(r) == r


def test_simulate_releases_the_gil():
    row, seconds, ticks = ticks_while(lambda: bfopt.classic.simulate(
        bits=4_000_000, hashes=5, items=400_000, epochs=4, probes=4_000_000, seed=3))
    assert row.agrees
    assert seconds > 0.1, "simulate too short to show anything"
    assert ticks >= 20, f"only {ticks} ticks in {seconds:.2f} s of simulate"


@pytest.mark.parametrize(
    "func,kwargs,parameter,value",
    [
        (bfopt.btbf.model, dict(timers=0, hashes=4, bits_per_timer=12, window=100), "timers", "0"),
        (bfopt.btbf.model, dict(timers=1000, hashes=65, bits_per_timer=12, window=100), "hashes", "65"),
        (bfopt.btbf.model, dict(timers=1000, hashes=4, bits_per_timer=12, window=-5), "window", "-5"),
        (bfopt.btbf.model, dict(timers=1000, hashes=4, bits_per_timer=12, window=100, prior="flat:3"), "prior", "flat:3"),
        (bfopt.btbf.optimize, dict(bits_per_item=8, window=1000, prior="uniform:100", penalties="odd"), "penalties", "odd"),
        (bfopt.btbf.posterior, dict(timers=1000, hashes=4, window=100, px=2.0, timestamp_age=5, matching=1), "px", "2"),
        (bfopt.btbf.posterior, dict(timers=1000, hashes=4, window=100, px=0.1, timestamp_age="soon", matching=1), "timestamp_age", "soon"),
        (bfopt.btbf.posterior, dict(timers=1000, hashes=4, window=100, px=0.1, timestamp_age=5, matching=1, g_form="other"), "g_form", "other"),
        (bfopt.gbf.model, dict(bits=0, reset_hashes=1, set_hashes=4, window=100), "bits", "0"),
        (bfopt.gbf.posterior, dict(bits=1000, reset_hashes=1, set_hashes=4, window=100, px=0.1, matching=4, mismatching=0, penalty_fp=-1, penalty_fn=1), "penalty_fp", "-1"),
        (bfopt.gbf.optimize, dict(bits_per_item=-8, window=1000, prior="uniform:100"), "bits_per_item", "-8"),
        (bfopt.ibf.model, dict(policy="ibf9", cells=1000, hashes=3, max=3, decrements=10), "policy", "ibf9"),
        (bfopt.ibf.model, dict(policy="ibf1", cells=0, hashes=3, max=3, decrements=10), "cells", "0"),
        (bfopt.pbf.optimize, dict(trace=TRACE, bits=0, query_length=8), "bits", "0"),
        (bfopt.pbf.optimize, dict(trace="/nonexistent/trace.csv", bits=1000, query_length=8), "trace", None),
        (bfopt.classic.simulate, dict(bits=1000, hashes=3, items=100, confidence=1.5), "confidence", "1.5"),
        (bfopt.classic.model, dict(bits=1000, hashes=True, items=100), "hashes", "True"),
        (bfopt.classic.model, dict(bits=[1000, 2000], hashes=3, items=100), "bits", "1000,2000"),
    ],
)
def test_errors_name_keyword_value_and_range(func, kwargs, parameter, value):
    with pytest.raises(bfopt.InvalidParameter) as info:
        func(**kwargs)
    e = info.value
    assert isinstance(e, ValueError)
    assert e.parameter == parameter
    if value is not None:
        assert e.value == value
    assert e.allowed and "--" not in e.allowed, e.allowed


def test_missing_and_unknown_keywords_are_type_errors():
    with pytest.raises(TypeError) as info:
        bfopt.btbf.model(timers=1000, hashes=4, bits_per_timer=12)
    assert "window" in str(info.value)
    with pytest.raises(TypeError):
        bfopt.btbf.model(timers=1000, hashes=4, bits_per_timer=12, window=10, colour="red")
    with pytest.raises(TypeError) as info:
        bfopt.btbf.model(timers=1000, hashes=4, bits_per_timer=12, window=None)
    assert "missing" in str(info.value) and "window" in str(info.value)


def test_infeasible_names_the_binding_constraint():
    with pytest.raises(bfopt.Infeasible) as info:
        bfopt.classic.optimize(bits=64, hashes=8, fp=1e-12)
    assert info.value.binding and "--" not in info.value.binding


def test_allowed_text_names_keywords_not_flags():
    # The CLI says `--fp P --items N`; Python says `fp=P items=N`.
    with pytest.raises(bfopt.InvalidParameter) as info:
        bfopt.classic.optimize(fp=0.01)
    e = info.value
    assert (e.parameter, e.value) == ("fp/items/bits/hashes", "this combination")
    assert e.allowed == ("one of: fp=P items=N (size) | bits=M items=N (best k) | "
                         "bits=M hashes=K fp=P (capacity)")
