"""Plan.validate runs the simulations without the GIL and equals the CLI's validation."""

import threading
import time

import bfopt
from cases import VALIDATE


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
    running = threading.Event()
    done = threading.Event()
    result = {}

    def work():
        running.set()
        start = time.perf_counter()
        result["validation"] = plan.validate(seed=1)
        result["seconds"] = time.perf_counter() - start
        done.set()

    # Ticks of this (main) thread while validate runs in the other: a call that held the
    # GIL would let at most a tick or two through, at its start and end.
    ticks = 0
    worker = threading.Thread(target=work)
    worker.start()
    running.wait()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    assert result["validation"].passed
    assert result["seconds"] > 0.1, "validate too short to show anything"
    assert ticks >= 20, f"only {ticks} ticks in {result['seconds']:.2f} s of validate"
