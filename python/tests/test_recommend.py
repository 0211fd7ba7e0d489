"""bfopt.recommend reproduces `bfopt recommend --format json` for the README's examples."""

import math

import pytest

import bfopt
from cases import RECOMMEND


@pytest.mark.parametrize("name,flags,kwargs", RECOMMEND, ids=[c[0] for c in RECOMMEND])
def test_plan_equals_cli_json(cli, name, flags, kwargs):
    expected = cli(name, flags)
    plan = bfopt.recommend(**kwargs)
    assert plan.to_dict() == expected


@pytest.mark.parametrize("name,flags,kwargs", RECOMMEND, ids=[c[0] for c in RECOMMEND])
def test_typed_attributes_match_the_dict(cli, name, flags, kwargs):
    expected = cli(name, flags)
    plan = bfopt.recommend(**kwargs)
    assert len(plan) == len(plan.candidates) == len(expected["candidates"])
    for c, e in zip(plan.candidates, expected["candidates"]):
        assert c.to_dict() == e
        assert (c.family, c.design, c.params) == (e["family"], e["design"], e["params"])
        assert all(isinstance(v, (int, float)) for v in c.params.values())
        assert isinstance(c.bits, int) and c.bits == e["bits"]
        assert c.bits_per_item == e["bits_per_item"]
        assert c.fp == e["fp"] and c.fp_kind == e["fp_kind"]
        assert (c.accesses_insert, c.accesses_query) == (e["accesses_insert"], e["accesses_query"])
        assert c.npws == e["npws"] and c.false_negatives == e["false_negatives"]
        assert c.notes == e["notes"] and c.not_simulated == e["not_simulated"]
    assert plan.pick.to_dict() == expected["pick"]
    assert plan.pick.candidate.to_dict() == expected["candidates"][expected["pick"]["index"]]
    assert plan.excluded == expected["excluded"]
    assert plan.notes == expected["notes"]
    assert plan.requirement == expected["requirement"]


def test_pick_meets_the_target():
    plan = bfopt.recommend(fp=0.01, window=1_000_000, max_accesses=8)
    pick = plan.pick.candidate
    assert pick.fp <= 0.01
    assert max(pick.accesses_insert, pick.accesses_query) <= 8
    assert plan.candidates[0].bits == min(c.bits for c in plan.candidates)


def test_counts_accept_integral_floats():
    assert bfopt.recommend(fp=0.01, capacity=1e6).to_dict() == bfopt.recommend(
        fp=0.01, capacity=1_000_000
    ).to_dict()


def test_penalties_as_text_or_pair():
    a = bfopt.recommend(fp=0.01, window=100_000, penalties="1:10").to_dict()
    b = bfopt.recommend(fp=0.01, window=100_000, penalties=(1.0, 10.0)).to_dict()
    assert a == b


def test_to_pandas_or_a_clear_import_error():
    plan = bfopt.recommend(fp=0.01, capacity=1_000_000)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install pandas"):
            plan.to_pandas()
        return
    df = plan.to_pandas()
    assert list(df["design"]) == [c.design for c in plan.candidates]
    assert df["pick"].sum() == 1 and df["pick"][plan.pick.index]
    assert list(df["bits"]) == [c.bits for c in plan.candidates]
    assert not math.isnan(df["m"][0])


def test_fixtures_match_the_cli():
    """fixtures/cli.json (used when no CLI is built) is what the CLI prints now."""
    import json

    from cases import INFEASIBLE, RECOMMEND
    from conftest import FIXTURES, cli_path, run_cli

    if cli_path() is None:
        pytest.skip("no bfopt binary: the other tests use the fixtures")
    fixtures = json.loads(FIXTURES.read_text())
    for name, flags, _ in RECOMMEND:
        assert fixtures[name] == run_cli(flags)[0], f"stale fixture {name}: run tests/make_fixtures.py"
    assert fixtures["infeasible"] == run_cli(INFEASIBLE[0])[0]
