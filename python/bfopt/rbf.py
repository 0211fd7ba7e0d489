"""The recycling Bloom filter (RBF): ``model``, ``optimize`` and ``simulate``, as
``bfopt model|optimize|simulate rbf``.

Keyword arguments are the CLI's flags; ``None`` leaves a flag out (the CLI's default).
``hashing``: ``"colliding"`` or ``"distinct"``; ``recycling``: ``"non-retaining"`` or
``"retaining"``; ``phases``: 1 or 2.
"""

from ._result import Result, call


class Model(Result):
    """``bfopt model rbf``: FP at the end of a cycle and on average, messages per cycle."""


class Optimum(Result):
    """``bfopt optimize rbf``: (k, sigma) with the most messages, or the least memory."""


class Simulation(Result):
    """``bfopt simulate rbf``: false positives counted three ways against the model."""


def model(*, bits, hashes, recycle_bits=None, recycle_messages=None, phases=None,
          hashing=None, recycling=None, method=None):
    """Predicted metrics of an RBF of ``bits`` bits and ``hashes`` hashes, recycled
    after ``recycle_bits`` set bits (sigma) or ``recycle_messages`` messages (``bfopt
    model rbf``; Eqs. (1)-(3) [RBF]). ``method``: ``"auto"``, ``"exact"`` (the Markov
    chain) or ``"fluid"``.

    >>> r = bfopt.rbf.model(bits=65536, hashes=7, recycle_bits=32768)
    >>> r.fp_avg < 0.01
    True
    """
    return call("model", "rbf", locals(), Model)


def optimize(*, fp, bits=None, messages=None, window=None, phases=None, hashing=None,
             recycling=None):
    """``bits``: the (k, sigma) with the most messages per cycle at FP ``fp``;
    ``messages`` or ``window``: the least memory (``bfopt optimize rbf``).

    >>> r = bfopt.rbf.optimize(fp=0.01, bits=65536)
    >>> r.fp_avg <= 0.01
    True
    """
    return call("optimize", "rbf", locals(), Optimum)


def simulate(*, bits, hashes, recycle_bits=None, recycle_messages=None, phases=None,
             hashing=None, recycling=None, method=None, epochs=None, arrivals=None, pool=None,
             seed=None, confidence=None):
    """Runs a reference RBF on a stream of ``arrivals`` messages per epoch (``bfopt
    simulate rbf``): false positives against the model. Runs with the GIL released.

    >>> r = bfopt.rbf.simulate(bits=4096, hashes=4, recycle_bits=1024, epochs=2, arrivals=20_000)
    >>> r.agrees
    True
    """
    return call("simulate", "rbf", locals(), Simulation)
