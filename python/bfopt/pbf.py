"""The persistent Bloom filter (PBF): the optimal bit split (``model``), the space bound
(``bound``), the allocation for a trace (``optimize``) and the synthetic-day experiment
(``simulate``), as ``bfopt model pbf``, ``bfopt model pbf-bound``, ``bfopt optimize pbf``
and ``bfopt simulate pbf``.

Keyword arguments are the CLI's flags; ``None`` leaves a flag out (the CLI's default).
Lists (``distinct``, ``frequency``) are the CLI's comma-separated values.
"""

from ._result import Result, call


class Model(Result):
    """``bfopt model pbf``: per-filter bits and hashes, FP against the uniform split."""


class Bound(Result):
    """``bfopt model pbf-bound``: the memory bound of a PBF tree."""


class Optimum(Result):
    """``bfopt optimize pbf``: the bit allocation for a trace."""


class Simulation(Result):
    """``bfopt simulate pbf``: predicted against measured FP on a synthetic day."""


def model(*, bits, distinct, frequency, max_hashes=None):
    """The optimal split of ``bits`` bits over the filters of a PBF: filter i holds
    ``distinct[i]`` items and is probed with relative frequency ``frequency[i]``
    (``bfopt model pbf``; Eqs. (10)-(13) [PBF]).

    >>> r = bfopt.pbf.model(bits=100_000, distinct=[1000, 4000], frequency=[0.5, 0.5])
    >>> r.fp_rounded <= r.fp_uniform
    True
    """
    return call("model", "pbf", locals(), Model)


def bound(*, pairs, horizon, fp, query_length, granularity=None):
    """The memory bound of a PBF tree holding ``pairs`` (item, timestamp) pairs over
    ``horizon`` timestamps for queries of ``query_length`` timestamps at FP ``fp``
    (``bfopt model pbf-bound``; Eq. (14) [PBF]).

    >>> r = bfopt.pbf.bound(pairs=1_000_000, horizon=86400, fp=0.01, query_length=128)
    >>> r.params["pairs"]
    1000000
    """
    return call("model", "pbf-bound", locals(), Bound)


def optimize(*, trace, bits, query_length, variant=None, granularity=None, horizon=None,
             online=False, queries=None, seed=None, max_hashes=None):
    """The bit allocation of a PBF for the (item, timestamp) pairs of ``trace`` (a CSV
    path) and queries of ``query_length`` timestamps in ``bits`` bits (``bfopt optimize
    pbf``); ``variant``: 1 or 2 (default 2). Returns a :class:`bfopt.Results` list: the
    whole tree first, then one row per level. The allocation runs with the GIL released.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "trace.csv")
    >>> _ = open(path, "w").write("".join(f"{i % 300},{1 + i // 20}\\n" for i in range(2000)))
    >>> tree, *levels = bfopt.pbf.optimize(trace=path, bits=50_000, query_length=8)
    >>> tree.predicted_fp <= tree.predicted_fp_uniform, sum(x.bits for x in levels) == tree.bits
    (True, True)
    """
    return call("optimize", "pbf", locals(), Optimum)


def simulate(*, dataset=None, scale=None, method=None, bits=None, query_length=None,
             horizon=None, figure=None, queries=None, granularity=None, max_hashes=None,
             seed=None, confidence=None):
    """Persistent Bloom filters on a synthetic day (``bfopt simulate pbf``): predicted
    against measured FP, one row per ``method`` (default: the methods of Table 2), a
    :class:`bfopt.Results` list. Runs with the GIL released.

    >>> rows = bfopt.pbf.simulate(scale=0.001, queries=1000, method="pbf2-opt")
    >>> [r.agrees for r in rows]
    [True]
    """
    return call("simulate", "pbf", locals(), Simulation)
