"""The classic Bloom filter (standard, partitioned or blocked): ``model``, ``optimize``
and ``simulate``, as ``bfopt model|optimize|simulate classic``.

Keyword arguments are the CLI's flags (``block_bits`` is ``--block-bits``); ``None``
leaves a flag out, so the CLI's default applies. Each function returns a result whose
``to_dict()`` is the CLI's JSON object and whose metrics and parameters are attributes.
"""

from ._result import Result, call


class Model(Result):
    """``bfopt model classic``: FP (the layout's law), fill, memory, accesses."""


class Optimum(Result):
    """``bfopt optimize classic``: the sized filter (``bits``, ``hashes``), its FP, or
    the ``capacity`` of a given filter."""


class Simulation(Result):
    """``bfopt simulate classic``: measured FP with its interval against the model
    (``agrees``)."""


def model(*, bits, hashes, items, layout=None, block_bits=None):
    """Predicted metrics of a filter of ``bits`` bits and ``hashes`` hash functions
    holding ``items`` distinct items (``bfopt model classic``). ``layout``:
    ``"standard"`` (default), ``"partitioned"`` or ``"blocked"`` (``block_bits``,
    default 512). ``fp`` is the layout's law: ``(1-(1-1/m)^(kn))^k`` for the standard
    layout (Eq. (1) [RBF]).

    >>> r = bfopt.classic.model(bits=9_592_956, hashes=7, items=1_000_000)
    >>> r.fp <= 0.01, r.params["layout"]
    (True, 'standard')
    """
    return call("model", "classic", locals(), Model)


def optimize(*, fp=None, items=None, bits=None, hashes=None, max_hashes=None, layout=None,
             block_bits=None):
    """Sizes a classic filter (``bfopt optimize classic``); one of three questions:
    ``fp, items``: the smallest filter (``bits``, ``hashes``) holding ``items`` at FP
    at most ``fp`` (``hashes`` at most ``max_hashes``, default 64); ``bits, items``: the
    best number of hashes; ``bits, hashes, fp``: the capacity.

    Raises :class:`bfopt.Infeasible` when no filter meets the target.

    >>> r = bfopt.classic.optimize(fp=0.01, items=1_000_000)
    >>> r.bits, r.hashes
    (9592956, 7)
    """
    return call("optimize", "classic", locals(), Optimum)


def simulate(*, bits, hashes, items, layout=None, block_bits=None, epochs=None, probes=None,
             seed=None, workload=None, duplicates=None, universe=None, zipf_exponent=None,
             trace=None, confidence=None):
    """Fills a reference filter and probes non-members (``bfopt simulate classic``):
    the measured FP with its ``confidence`` interval (default 0.99) against the model.
    ``workload``: ``"distinct"`` (default), ``"uniform"`` (with ``duplicates``),
    ``"zipf"`` (``universe``, ``zipf_exponent``) or ``"window-repeats"``; ``trace``: a
    CSV of items instead. Runs with the GIL released.

    >>> r = bfopt.classic.simulate(bits=10_000, hashes=4, items=1_000, epochs=2, probes=20_000)
    >>> r.agrees
    True
    """
    return call("simulate", "classic", locals(), Simulation)
