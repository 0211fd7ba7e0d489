"""Plan.validate runs the simulations without the GIL and equals the CLI's validation."""

import bfopt
from cases import VALIDATE
from conftest import ticks_while


def test_validate_equals_cli(cli):
    flags, kwargs = VALIDATE
    expected = cli("validate", [*flags, "--validate", "--seed", "1"])
    v = bfopt.recommend(**kwargs).validate(level="quick", seed=1)
    assert v.to_dict() == expected["validation"]
    assert v.passed
    assert [d["design"] for d in v.designs] == [c["design"] for c in expected["candidates"]]
    assert any(d["status"] == "pass" for d in v.designs)


def test_validate_releases_the_gil():
    # Ten times the fixture's window, so that validate runs long enough to measure on an
    # idle machine too.
    plan = bfopt.recommend(fp=0.02, window=20_000)
    validation, seconds, ticks = ticks_while(lambda: plan.validate(seed=1))
    assert validation.passed
    assert seconds > 0.1, "validate too short to show anything"
    assert ticks >= 20, f"only {ticks} ticks in {seconds:.2f} s of validate"
