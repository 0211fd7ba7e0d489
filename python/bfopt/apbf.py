"""The age-partitioned Bloom filter (APBF) and its blocked variant (APBBF): ``model``,
``optimize`` and ``simulate``, as ``bfopt model apbf|apbbf``, ``bfopt optimize apbf``
and ``bfopt simulate apbf|apbbf``.

Keyword arguments are the CLI's flags; ``None`` leaves a flag out (the CLI's default).
``block_bits`` with ``block_hashes`` selects the blocked filter in ``model`` and
``simulate``.
"""

from ._result import Result, call


class Model(Result):
    """``bfopt model apbf|apbbf``: FP, memory, accesses, false negatives by age."""


class Optimum(Result):
    """``bfopt optimize apbf``: the least-memory design (``k``, ``l``) and its
    ``binding`` constraint."""


class Simulation(Result):
    """``bfopt simulate apbf|apbbf``: measured FP against the model (``agrees``)."""


def _family(block_bits, block_hashes):
    return "apbf" if block_bits is None and block_hashes is None else "apbbf"


def model(*, hashes, extra_slices, window=None, slice_bits=None, block_bits=None,
          block_hashes=None):
    """Predicted metrics of an APBF of ``hashes`` (k) + ``extra_slices`` (l) slices,
    sized for ``window`` items or with ``slice_bits`` bits per slice (``bfopt model
    apbf``); with ``block_bits`` and ``block_hashes``, an APBBF (``bfopt model apbbf``).

    >>> r = bfopt.apbf.model(hashes=10, extra_slices=7, window=1_000_000)
    >>> r.fp < 0.002
    True
    """
    return call("model", _family(block_bits, block_hashes), locals(), Model)


def optimize(*, fp, window, memory=None, max_accesses=None, max_npws=None, blocked=False,
             block_bits=None, block_hashes=None, all=False):
    """The least-memory APBF (k, l) meeting ``fp`` over a sliding ``window`` within the
    budgets (``bfopt optimize apbf``); ``blocked=True``: an APBBF; ``all=True``: the
    Pareto set, a :class:`bfopt.Results` list.

    >>> r = bfopt.apbf.optimize(fp=0.01, window=1_000_000)
    >>> r.fp <= 0.01, r.binding
    (True, 'fp')
    """
    return call("optimize", "apbf", locals(), Optimum)


def simulate(*, hashes, extra_slices, window=None, slice_bits=None, block_bits=None,
             block_hashes=None, generations=None, phases=None, epochs=None, probes=None,
             seed=None, workload=None, duplicates=None, universe=None, zipf_exponent=None,
             trace=None, confidence=None):
    """Streams through a reference APBF (an APBBF with ``block_bits``/``block_hashes``)
    for ``generations`` generations (``bfopt simulate apbf|apbbf``): measured FP,
    accesses and false negatives against the model. Runs with the GIL released.

    >>> r = bfopt.apbf.simulate(hashes=4, extra_slices=3, window=1000, epochs=2, probes=5000)
    >>> r.agrees
    True
    """
    return call("simulate", _family(block_bits, block_hashes), locals(), Simulation)
