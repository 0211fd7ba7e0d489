"""The Stable Bloom filter (SBF): ``model``, ``optimize`` and ``simulate``, as
``bfopt model|optimize|simulate sbf``.

Keyword arguments are the CLI's flags; ``None`` leaves a flag out (the CLI's default).
"""

from ._result import Result, call


class Model(Result):
    """``bfopt model sbf``: stable-point zero fraction, FP, FN by age."""


class Optimum(Result):
    """``bfopt optimize sbf``: the decrements per insertion meeting the FP target."""


class Simulation(Result):
    """``bfopt simulate sbf``: the measured stable point against the model."""


def model(*, cells, hashes, max, decrements, age=None, insertions=None):
    """Stable-point metrics of an SBF of ``cells`` cells counting to ``max``, ``hashes``
    cells set and ``decrements`` cells decremented per insertion (``bfopt model sbf``);
    ``age``: the FN of an item that old; ``insertions``: the zero fraction after that
    many insertions from empty.

    >>> r = bfopt.sbf.model(cells=1_000_000, hashes=3, max=3, decrements=36)
    >>> r.fp <= 0.01
    True
    """
    return call("model", "sbf", locals(), Model)


def optimize(*, cells, hashes, max, fp):
    """The decrements per insertion P bringing the stable-point FP to at most ``fp``
    (``bfopt optimize sbf``; Eq. (17) [SBF] solved for P).

    >>> r = bfopt.sbf.optimize(cells=1_000_000, hashes=3, max=3, fp=0.01)
    >>> r.fp <= 0.01
    True
    """
    return call("optimize", "sbf", locals(), Optimum)


def simulate(*, cells, hashes, max, decrements, steps=None, age=None, epochs=None, probes=None,
             seed=None, confidence=None):
    """Runs a reference SBF to its stable point (``bfopt simulate sbf``): measured
    against predicted. Runs with the GIL released.

    >>> r = bfopt.sbf.simulate(cells=10_000, hashes=3, max=3, decrements=10, epochs=2)
    >>> r.measured_zero_fraction_lo <= r.zero_fraction <= r.measured_zero_fraction_hi
    True
    """
    return call("simulate", "sbf", locals(), Simulation)
