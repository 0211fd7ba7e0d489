"""The Generalized Bloom filter (GBF): ``model``, ``optimize``, ``posterior`` and
``simulate``, as ``bfopt model|optimize|posterior|simulate gbf``.

Keyword arguments are the CLI's flags; ``None`` leaves a flag out (the CLI's default).
``reset_hashes`` is k0 (bits reset per insertion), ``set_hashes`` k1 (bits set).
"""

from ._result import Result, call


class Model(Result):
    """``bfopt model gbf``: Pos rates, window FP and FN."""


class Optimum(Result):
    """``bfopt optimize gbf``: the penalty-optimal (k0, k1)."""


class Posterior(Result):
    """``bfopt posterior gbf``: Eq. (34) [TBF] and the decision when both penalties
    are given."""


class Simulation(Result):
    """``bfopt simulate gbf``: the Section 6 stream experiment against the model."""


def model(*, bits, reset_hashes, set_hashes, window, age=None, prior=None,
          distinct_decay=False):
    """Predicted metrics of a GBF of ``bits`` bits, ``reset_hashes`` (k0) and
    ``set_hashes`` (k1) over a ``window`` (``bfopt model gbf``); ``age``: the FN of an
    item that old; ``prior``: a stream ``"uniform:U"`` or ``"zipf:U"``.

    >>> r = bfopt.gbf.model(bits=100_000, reset_hashes=1, set_hashes=4, window=10_000)
    >>> 0 < r.params["m"]
    True
    """
    return call("model", "gbf", locals(), Model)


def optimize(*, bits_per_item, window, prior, penalties=None, max_hashes=None):
    """The penalty-optimal GBF (k0, k1) for ``bits_per_item`` bits per window item
    (``bfopt optimize gbf``). Runs with the GIL released.

    >>> r = bfopt.gbf.optimize(bits_per_item=8, window=1000, prior="uniform:10000", max_hashes=4)
    >>> r.params["window"]
    1000
    """
    return call("optimize", "gbf", locals(), Optimum)


def posterior(*, bits, reset_hashes, set_hashes, window, px, matching, mismatching,
              penalty_fp=None, penalty_fn=None):
    """The inferential GBF's posterior that the queried item was inserted within the
    window given ``matching`` = D (its cells as it left them) and ``mismatching`` = E
    (its cells changed since) (``bfopt posterior gbf``; Eq. (34) [TBF], computed stably
    for any k).

    >>> r = bfopt.gbf.posterior(bits=100_000, reset_hashes=1, set_hashes=4, window=10_000, px=1e-4, matching=4, mismatching=0)
    >>> 0 <= r.posterior <= 1
    True
    """
    return call("posterior", "gbf", locals(), Posterior)


def simulate(*, bits, reset_hashes, set_hashes, window, prior, penalties=None, epochs=None,
             seed=None, confidence=None, queries=None):
    """The Section 6 stream experiment on a reference GBF (``bfopt simulate gbf``).
    Runs with the GIL released.

    >>> r = bfopt.gbf.simulate(bits=20_000, reset_hashes=1, set_hashes=4, window=2000, prior="uniform:20000", epochs=2, queries=4096)
    >>> abs(r.measured_fp / r.fp - 1) < 0.1
    True
    """
    return call("simulate", "gbf", locals(), Simulation)
