"""Finds the `bfopt` CLI whose JSON the package must reproduce.

`BFOPT_BIN` names it; otherwise the newest of `target/release/bfopt` and
`target/debug/bfopt` of this checkout. Without one, the tests compare with
`fixtures/cli.json`, which `make_fixtures.py` writes from the CLI (and
`test_fixtures_match_the_cli` checks it is current whenever the CLI is present).
"""

import json
import os
import pathlib
import subprocess
import threading
import time

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
FIXTURES = HERE / "fixtures" / "cli.json"


def cli_path():
    env = os.environ.get("BFOPT_BIN")
    if env:
        return pathlib.Path(env)
    found = [ROOT / "target" / p / "bfopt" for p in ("release", "debug")]
    found = [p for p in found if p.is_file()]
    return max(found, key=lambda p: p.stat().st_mtime) if found else None


def run_cli(flags, verb=("recommend",)):
    """The JSON `bfopt VERB FLAGS --format json` prints, and its exit code."""
    binary = cli_path()
    out = subprocess.run(
        [str(binary), *verb, *flags, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return json.loads(out.stdout), out.returncode


def portable(doc):
    """The CLI's JSON with any `params.trace` as this checkout spells it (the fixtures
    hold the path of the checkout that wrote them)."""
    from cases import TRACE

    if isinstance(doc, list):
        return [portable(row) for row in doc]
    if isinstance(doc, dict) and "trace" in doc.get("params", {}):
        return dict(doc, params=dict(doc["params"], trace=TRACE))
    return doc


@pytest.fixture(scope="session")
def cli():
    """`cli(name, flags, verb)`: the CLI's JSON for these flags (live, else the fixture).
    With a live CLI, the fixture must equal it (else: run make_fixtures.py)."""
    fixtures = json.loads(FIXTURES.read_text()) if FIXTURES.is_file() else {}

    def get(name, flags, verb=("recommend",)):
        if name not in fixtures:
            pytest.fail(f"no fixture {name!r}: run tests/make_fixtures.py")
        if cli_path() is None:
            return portable(fixtures[name])
        live = run_cli(flags, verb)[0]
        assert portable(live) == portable(fixtures[name]), (
            f"stale fixture {name!r}: run tests/make_fixtures.py")
        return portable(live)

    return get


def ticks_while(call):
    """Runs `call()` in another thread and counts the ticks (1 ms sleeps) this thread
    makes meanwhile: a call that held the GIL would let at most a tick or two through,
    at its start and end. Returns (result, seconds of the call, ticks)."""
    done = threading.Event()
    out = {}

    def work():
        start = time.perf_counter()
        out["result"] = call()
        out["seconds"] = time.perf_counter() - start
        done.set()

    ticks = 0
    worker = threading.Thread(target=work)
    worker.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    return out["result"], out["seconds"], ticks
