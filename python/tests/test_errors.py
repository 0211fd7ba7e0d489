"""Bad input raises InvalidParameter (a ValueError) naming parameter, value and range;
an infeasible requirement raises Infeasible with the binding constraint."""

import pytest

import bfopt
from cases import INFEASIBLE


@pytest.mark.parametrize(
    "kwargs,parameter,value,allowed",
    [
        (dict(fp=1.5, window=1000), "fp", "1.5", "0 < fp < 1"),
        (dict(fp=0.0, capacity=1000), "fp", "0", "0 < fp < 1"),
        (dict(fp=float("nan"), capacity=1000), "fp", "NaN", "0 < fp < 1"),
        (dict(fp=0.01, window=0), "window", "0", "1 <= window <= 2^40"),
        (dict(fp=0.01, window=-3), "window", "-3", "1 <= window <= 2^40"),
        (dict(fp=0.01, capacity=2**70), "capacity", str(2**70), "1 <= capacity <= 2^40"),
        (dict(fp=0.01, window=1000, max_accesses=0.5), "max_accesses", "0.5", "1 <= max_accesses < inf"),
        (dict(fp=0.01, window=1000, max_npws=2), "max_npws", "2", "0 <= max_npws <= 1"),
        (dict(fp=0.01, window=1000, allow_fn=1.0), "allow_fn", "1", "0 < allow_fn < 1"),
        (dict(fp=0.01, window=1000, duplicates=-0.1), "duplicates", "-0.1", "0 <= duplicates < 1"),
        (dict(fp=0.01, window=1000, memory=0), "memory", "0", "memory >= 1 bit"),
        (dict(fp=0.01, horizon=100, query_length=1, pairs=10), "query_length", "1", "2 <= query_length <= horizon = 100"),
        (dict(fp=0.01, initial_capacity=1000, max_items=10), "max_items", "10", "max_items >= initial_capacity = 1000"),
        (dict(fp=0.01, initial_capacity=0, max_items=10), "initial_capacity", "0", "1 <= initial_capacity <= 2^40"),
        (dict(fp=0.01, initial_capacity=1000), "initial_capacity", "1000", "only with both initial_capacity=N0 and max_items=NMAX"),
        (dict(fp=0.01, window=1000, deletions=True), "deletions", "true", "only with a static set (--capacity N)"),
    ],
)
def test_invalid_parameter_names_parameter_value_and_range(kwargs, parameter, value, allowed):
    with pytest.raises(bfopt.InvalidParameter) as info:
        bfopt.recommend(**kwargs)
    e = info.value
    assert isinstance(e, ValueError)
    assert (e.parameter, e.value, e.allowed) == (parameter, value, allowed)
    assert str(e) == f"invalid {parameter} = {value} (allowed: {allowed})"


def test_options_that_need_a_window():
    with pytest.raises(bfopt.InvalidParameter) as info:
        bfopt.recommend(fp=0.01, capacity=1000, allow_fn=0.1)
    assert info.value.parameter == "allow_fn"
    assert "only with a window" in info.value.allowed


def test_exactly_one_shape():
    for kwargs in (
        dict(fp=0.01),
        dict(fp=0.01, capacity=10, window=10),
        dict(fp=0.01, capacity=10, initial_capacity=10, max_items=100),
    ):
        with pytest.raises(bfopt.InvalidParameter) as info:
            bfopt.recommend(**kwargs)
        assert info.value.parameter == "capacity/window/horizon"
        assert "initial_capacity=N0 with max_items=NMAX" in info.value.allowed


def test_bad_types_are_invalid_parameters():
    with pytest.raises(bfopt.InvalidParameter) as info:
        bfopt.recommend(fp="a lot", window=1000)
    assert info.value.parameter == "fp"
    with pytest.raises(bfopt.InvalidParameter) as info:
        bfopt.recommend(fp=0.01, window=1000.5)
    assert (info.value.parameter, info.value.value) == ("window", "1000.5")
    with pytest.raises(bfopt.InvalidParameter) as info:
        bfopt.recommend(fp=0.01, window=1000, importance="nonsense")
    assert info.value.parameter == "importance"
    with pytest.raises(bfopt.InvalidParameter) as info:
        bfopt.recommend(fp=0.01, window=1000, penalties=(0, 0))
    assert info.value.parameter == "penalties"
    with pytest.raises(bfopt.InvalidParameter) as info:
        bfopt.recommend(fp=0.01, window=1000, penalties=(-1, 2))
    assert info.value.parameter == "penalty_fp"


def test_infeasible_carries_the_binding_constraint(cli):
    flags, kwargs = INFEASIBLE
    expected = cli("infeasible", flags)
    with pytest.raises(bfopt.Infeasible) as info:
        bfopt.recommend(**kwargs)
    e = info.value
    assert e.binding == expected["binding"]
    assert e.achievable == expected["achievable"]
    assert e.excluded == expected["excluded"]
    assert e.requirement == expected["requirement"]
    assert "memory" in e.binding and any(x.get("budget") == "memory_bits" for x in e.excluded)


def test_validate_level_is_checked():
    plan = bfopt.recommend(fp=0.01, capacity=1000)
    with pytest.raises(bfopt.InvalidParameter) as info:
        plan.validate(level="slow")
    assert info.value.parameter == "level"
