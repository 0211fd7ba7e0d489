"""The Timing / Block Timing Bloom filter (TBF, BTBF; family ``timing`` in the CLI's
JSON): ``model``, ``optimize``, ``posterior`` and ``simulate``, as ``bfopt
model|optimize|posterior|simulate btbf``.

Keyword arguments are the CLI's flags; ``None`` leaves a flag out (the CLI's default).
``prior``: a stream ``"uniform:U"`` or ``"zipf:U"``; ``penalties``: ``"uniform:LO:HI"``
or ``"fixed:FP:FN"``.
"""

from ._result import Result, call


class Model(Result):
    """``bfopt model btbf``: FP, memory, ``T_max``, timers scanned per insertion."""


class Optimum(Result):
    """``bfopt optimize btbf``: the penalty-optimal (k, bits per timer, B, P)."""


class Posterior(Result):
    """``bfopt posterior btbf``: P(I_x < w | R_x), expected and most likely age, and
    the decision when both penalties are given."""


class Simulation(Result):
    """``bfopt simulate btbf``: the Section 6 stream experiment against the model."""


def model(*, timers, hashes, bits_per_timer, window, block_size=None, padding=None,
          prior=None):
    """Predicted metrics of a BTBF of ``timers`` timers of ``bits_per_timer`` bits,
    ``hashes`` hashes, insertion blocks of ``block_size`` (1: a TBF) over a ``window``
    (``bfopt model btbf``); ``padding`` defaults to m/(kB) reduced to what fits.

    >>> r = bfopt.btbf.model(timers=100_000, hashes=4, bits_per_timer=16, window=10_000)
    >>> r.padding, r.t_max, r.fp < 0.012
    (24999, 35000, True)
    """
    return call("model", "btbf", locals(), Model)


def optimize(*, bits_per_item, window, prior, penalties=None, max_hashes=None,
             max_bits_per_timer=None, objective=None):
    """The penalty-optimal BTBF for a memory budget of ``bits_per_item`` bits per window
    item (``bfopt optimize btbf``); ``objective``: ``"inferential"`` (default) or
    ``"standard"``. Runs with the GIL released.

    >>> r = bfopt.btbf.optimize(bits_per_item=8, window=1000, prior="uniform:10000", max_hashes=4, max_bits_per_timer=6)
    >>> r.bits_per_item_used <= 8
    True
    """
    return call("optimize", "btbf", locals(), Optimum)


def posterior(*, timers, hashes, window, px, timestamp_age, matching, block_size=None,
              offset=None, touched=None, distinct=None, g_form=None, penalty_fp=None,
              penalty_fn=None):
    """The inferential BTBF's posterior that the queried item was inserted within the
    window, given the oldest timestamp age ``timestamp_age`` (a count or ``"expired"``)
    held by ``matching`` of its ``touched`` timers (``bfopt posterior btbf``);
    ``g_form``: ``"paper"`` (Eq. (25) as printed) or ``"increment"``. With
    ``penalty_fp`` and ``penalty_fn``, the minimum-penalty ``decision``.

    >>> r = bfopt.btbf.posterior(timers=100_000, hashes=4, window=10_000, px=1e-4, timestamp_age=500, matching=4)
    >>> 0 <= r.posterior <= 1
    True
    """
    return call("posterior", "btbf", locals(), Posterior)


def simulate(*, timers, hashes, bits_per_timer, window, prior, block_size=None, padding=None,
             penalties=None, epochs=None, seed=None, confidence=None, warmup=None,
             queries=None):
    """The Section 6 stream experiment on a reference BTBF (``bfopt simulate btbf``):
    measured FP and penalties against the model. Runs with the GIL released.

    >>> r = bfopt.btbf.simulate(timers=20_000, hashes=4, bits_per_timer=12, window=2000, prior="uniform:20000", epochs=2, queries=4096)
    >>> r.agrees
    True
    """
    return call("simulate", "btbf", locals(), Simulation)
