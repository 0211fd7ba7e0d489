"""Edge values never escape as anything but InvalidParameter or Infeasible (a Rust panic
would surface as pyo3's PanicException, a BaseException that `except Exception` misses)."""

import functools
import math
import random

import pytest

import bfopt
import bfopt.apbf
import bfopt.classic
import bfopt.pbf
import bfopt.rbf
import bfopt.sbf

EDGES = [0, 1, 2, -1, 0.5, 1e-300, 1.0 - 1e-16, 2**40, 2**40 + 1, 2**64, -(2**70), math.nan, math.inf, -math.inf, None]
EXPECTED = (bfopt.InvalidParameter, bfopt.Infeasible)

CALLS = [
    (bfopt.classic.model, ["bits", "hashes", "items"]),
    (bfopt.classic.optimize, ["fp", "items"]),
    (bfopt.classic.optimize, ["bits", "hashes", "fp"]),
    (bfopt.apbf.model, ["hashes", "extra_slices", "window"]),
    (bfopt.rbf.model, ["bits", "hashes", "recycle_messages"]),
    (bfopt.sbf.model, ["cells", "hashes", "max", "decrements"]),
    (bfopt.sbf.optimize, ["cells", "hashes", "max", "fp"]),
    (bfopt.pbf.bound, ["pairs", "horizon", "fp", "query_length"]),
    (bfopt.btbf.model, ["timers", "hashes", "bits_per_timer", "window", "block_size"]),
    (bfopt.btbf.posterior, ["timers", "hashes", "window", "px", "timestamp_age", "matching"]),
    (bfopt.gbf.model, ["bits", "reset_hashes", "set_hashes", "window", "age"]),
    (bfopt.gbf.posterior, ["bits", "reset_hashes", "set_hashes", "window", "px", "matching", "mismatching"]),
    (functools.partial(bfopt.ibf.model, policy="ibf2"), ["cells", "hashes", "max", "decrements"]),
]


@pytest.mark.parametrize("func,names", CALLS, ids=lambda x: getattr(x, "__qualname__", ""))
def test_family_edges(func, names):
    rng = random.Random(1)
    for _ in range(60):
        kwargs = {n: rng.choice(EDGES) for n in names}
        if any(v is None for v in kwargs.values()):
            kwargs = {n: v for n, v in kwargs.items() if v is not None}
        try:
            func(**kwargs)
        except EXPECTED:
            pass
        except TypeError as e:  # a required keyword left out
            assert "missing" in str(e), (kwargs, e)


def test_recommend_edges():
    rng = random.Random(2)
    for _ in range(60):
        kwargs = {"fp": rng.choice(EDGES[1:7] + [0.01, 1.5, math.nan])}
        kwargs[rng.choice(["capacity", "window"])] = rng.choice([1, 2, 1000, 0, -5, 2**41, 1e3])
        for name in ["max_accesses", "max_npws", "allow_fn", "duplicates", "memory"]:
            if rng.random() < 0.3:
                kwargs[name] = rng.choice([0, 1, 0.5, -1, 10, math.nan, 2**64])
        try:
            plan = bfopt.recommend(**kwargs)
            assert plan.pick.candidate.fp <= kwargs["fp"]
        except EXPECTED:
            pass
