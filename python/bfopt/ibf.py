"""The importance-aware Bloom filter (IBF, or an SBF under the same costs): ``model``,
``optimize`` and ``simulate``, as ``bfopt model|optimize|simulate ibf``.

Keyword arguments are the CLI's flags; ``None`` leaves a flag out (the CLI's default).
``policy``: ``"sbf"`` or ``"ibf1"`` to ``"ibf5"``; ``importance``: a distribution such as
``"linear:1:50"``; ``imp_map``: ``"cap"`` or ``"scale"``.
"""

from ._result import Result, call


class Model(Result):
    """``bfopt model ibf``: stable point, FP, FN by importance."""


class Optimum(Result):
    """``bfopt optimize ibf``: the policy and parameters of least expected error cost."""


class Simulation(Result):
    """``bfopt simulate ibf``: the measured stable point against the model."""


def model(*, policy, cells, hashes, max, decrements, importance=None, counter_bits=None,
          imp_map=None, age=None, member_share=None):
    """Stable-point metrics of an importance-aware filter (``bfopt model ibf``).

    >>> r = bfopt.ibf.model(policy="ibf1", cells=100_000, hashes=3, max=3, decrements=10)
    >>> 0 < r.fp < 1
    True
    """
    return call("model", "ibf", locals(), Model)


def optimize(*, bits, importance=None, cost_fp=None, cost_fn=None, age=None,
             member_share=None, policies=None):
    """The filter of least expected error cost for a memory budget of ``bits`` bits
    (``bfopt optimize ibf``); ``policies``: the policies tried (a list, default all);
    ``cost_fp``/``cost_fn``: cost expressions such as ``"1"`` and ``"1*imp"``.

    >>> r = bfopt.ibf.optimize(bits=100_000, policies=["sbf", "ibf1"])
    >>> r.params["bits"]
    100000
    """
    return call("optimize", "ibf", locals(), Optimum)


def simulate(*, policy, cells, hashes, max, decrements, importance=None, counter_bits=None,
             imp_map=None, steps=None, age=None, epochs=None, probes=None, seed=None,
             confidence=None, arrivals=None, duplicates=None):
    """Runs a reference importance-aware filter to its stable point (``bfopt simulate
    ibf``). Runs with the GIL released.

    >>> r = bfopt.ibf.simulate(policy="ibf1", cells=10_000, hashes=3, max=3, decrements=10, epochs=2)
    >>> r.measured_zero_fraction_lo <= r.zero_fraction <= r.measured_zero_fraction_hi
    True
    """
    return call("simulate", "ibf", locals(), Simulation)
