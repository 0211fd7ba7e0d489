"""The Generalized Bloom filter (GBF): ``model``, ``optimize``, ``posterior`` and
``simulate``, as ``bfopt model|optimize|posterior|simulate gbf``."""

from os import PathLike
from typing import Any, List, Optional, Sequence, Union

from ._result import Result, Results

Number = Union[int, float]


class Model(Result):
    """``bfopt model gbf``: Pos rates, window FP and FN."""

    age: int
    distinct_decay: bool
    fn: float
    fp: float
    in_window: float
    k0: int
    k1: int
    m: int
    positive_at_age: float
    positive_never: float
    prior: str
    q0: float
    q1: float
    q_eps: float
    window: int

class Optimum(Result):
    """``bfopt optimize gbf``: the penalty-optimal (k0, k1)."""

    bits: int
    bits_per_item: float
    expected_penalty_inferential: float
    expected_penalty_prior_only: float
    expected_penalty_standard: float
    max_hashes: int
    penalties: str
    prior: str
    reset_hashes: int
    set_hashes: int
    standard_expected_penalty: float
    standard_reset_hashes: int
    standard_set_hashes: int
    window: int

class Posterior(Result):
    """``bfopt posterior gbf``: Eq. (34) [TBF] and the decision when both penalties
    are given."""

    decision: str
    eq34_condition: float
    k0: int
    k1: int
    m: int
    matching: int
    mismatching: int
    penalty_fn: float
    penalty_fp: float
    posterior: float
    posterior_eq34_double: float
    px: float
    q_eps: float
    window: int

class Simulation(Result):
    """``bfopt simulate gbf``: the Section 6 stream experiment against the model."""

    epochs: int
    fn: float
    fp: float
    k0: int
    k1: int
    m: int
    measured_fn: float
    measured_fp: float
    measured_penalty_inferential: float
    measured_penalty_standard: float
    penalty_inferential: float
    penalty_ratio: float
    penalty_standard: float
    posterior_error: float
    prior: str
    queries: int
    seed: int
    window: int

def model(*, bits: Number, reset_hashes: Number, set_hashes: Number, window: Number,
    age: Optional[Number] = None, prior: Optional[str] = None, distinct_decay: bool = False
) -> Model:
    """Predicted metrics of a GBF of ``bits`` bits, ``reset_hashes`` (k0) and ``set_hashes``
    (k1) over a ``window`` (``bfopt model gbf``); ``age``: the FN of an item that old;
    ``prior``: a stream ``"uniform:U"`` or ``"zipf:U"``."""


def optimize(*, bits_per_item: float, window: Number, prior: str,
    penalties: Optional[str] = None, max_hashes: Optional[Number] = None) -> Optimum:
    """The penalty-optimal GBF (k0, k1) for ``bits_per_item`` bits per window item (``bfopt
    optimize gbf``). Runs with the GIL released."""


def posterior(*, bits: Number, reset_hashes: Number, set_hashes: Number, window: Number,
    px: float, matching: Number, mismatching: Number, penalty_fp: Optional[float] = None,
    penalty_fn: Optional[float] = None) -> Posterior:
    """The inferential GBF's posterior that the queried item was inserted within the window
    given ``matching`` = D (its cells as it left them) and ``mismatching`` = E (its cells
    changed since) (``bfopt posterior gbf``; Eq. (34) [TBF], computed stably for any k)."""


def simulate(*, bits: Number, reset_hashes: Number, set_hashes: Number, window: Number,
    prior: str, penalties: Optional[str] = None, epochs: Optional[Number] = None,
    seed: Optional[Number] = None, confidence: Optional[float] = None,
    queries: Optional[Number] = None) -> Simulation:
    """The Section 6 stream experiment on a reference GBF (``bfopt simulate gbf``). Runs
    with the GIL released."""
