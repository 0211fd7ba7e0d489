"""The Timing / Block Timing Bloom filter (TBF, BTBF; family ``timing`` in the CLI's JSON):
``model``, ``optimize``, ``posterior`` and ``simulate``, as ``bfopt
model|optimize|posterior|simulate btbf``."""

from os import PathLike
from typing import Any, List, Optional, Sequence, Union

from ._result import Result, Results

Number = Union[int, float]


class Model(Result):
    """``bfopt model btbf``: FP, memory, ``T_max``, timers scanned per insertion."""

    bits: int
    bits_per_item: float
    block_size: int
    bpt: int
    fp: float
    in_window: float
    k: int
    m: int
    padding: int
    prior: str
    scan_per_insert: float
    t_max: int
    w: int

class Optimum(Result):
    """``bfopt optimize btbf``: the penalty-optimal (k, bits per timer, B, P)."""

    bits_per_item: float
    bits_per_item_used: float
    bits_per_timer: int
    block_size: int
    candidates: int
    expected_penalty_inferential: float
    expected_penalty_prior_only: float
    expected_penalty_standard: float
    hashes: int
    max_bits_per_timer: int
    max_hashes: int
    objective: str
    padding: int
    penalties: str
    prior: str
    scan_per_insert: float
    timers: int
    window: int

class Posterior(Result):
    """``bfopt posterior btbf``: P(I_x < w | R_x), expected and most likely age, and
    the decision when both penalties are given."""

    block_size: int
    decision: str
    distinct: str
    expected_age: float
    g_form: str
    k: int
    m: int
    matching: int
    most_likely_age: int
    offset: int
    penalty_fn: float
    penalty_fp: float
    posterior: float
    px: float
    timestamp_age: str
    touched: int
    window: int

class Simulation(Result):
    """``bfopt simulate btbf``: the Section 6 stream experiment against the model."""

    agrees: bool
    block_size: int
    bpt: int
    confidence: float
    epochs: int
    false_negatives: int
    fp: float
    in_window: float
    k: int
    m: int
    measured_fp: float
    measured_fp_hi: float
    measured_fp_lo: float
    measured_penalty_inferential: float
    measured_penalty_prior_only: float
    measured_penalty_refined: float
    measured_penalty_standard: float
    padding: int
    penalties: str
    penalty_inferential: float
    penalty_prior_only: float
    penalty_ratio: float
    penalty_refined: float
    penalty_standard: float
    posterior_error: float
    prior: str
    queries: int
    refined_posterior_error: float
    seed: int
    w: int
    warmup: int

def model(*, timers: Number, hashes: Number, bits_per_timer: Number, window: Number,
    block_size: Optional[Number] = None, padding: Optional[Number] = None,
    prior: Optional[str] = None) -> Model:
    """Predicted metrics of a BTBF of ``timers`` timers of ``bits_per_timer`` bits,
    ``hashes`` hashes, insertion blocks of ``block_size`` (1: a TBF) over a ``window``
    (``bfopt model btbf``); ``padding`` defaults to m/(kB) reduced to what fits."""


def optimize(*, bits_per_item: float, window: Number, prior: str,
    penalties: Optional[str] = None, max_hashes: Optional[Number] = None,
    max_bits_per_timer: Optional[Number] = None, objective: Optional[str] = None) -> Optimum:
    """The penalty-optimal BTBF for a memory budget of ``bits_per_item`` bits per window
    item (``bfopt optimize btbf``); ``objective``: ``"inferential"`` (default) or
    ``"standard"``. Runs with the GIL released."""


def posterior(*, timers: Number, hashes: Number, window: Number, px: float,
    timestamp_age: Union[int, str], matching: Number, block_size: Optional[Number] = None,
    offset: Optional[Number] = None, touched: Optional[Number] = None,
    distinct: Optional[str] = None, g_form: Optional[str] = None,
    penalty_fp: Optional[float] = None, penalty_fn: Optional[float] = None) -> Posterior:
    """The inferential BTBF's posterior that the queried item was inserted within the
    window, given the oldest timestamp age ``timestamp_age`` (a count or ``"expired"``) held
    by ``matching`` of its ``touched`` timers (``bfopt posterior btbf``); ``g_form``:
    ``"paper"`` (Eq. (25) as printed) or ``"increment"``. With ``penalty_fp`` and
    ``penalty_fn``, the minimum-penalty ``decision``."""


def simulate(*, timers: Number, hashes: Number, bits_per_timer: Number, window: Number,
    prior: str, block_size: Optional[Number] = None, padding: Optional[Number] = None,
    penalties: Optional[str] = None, epochs: Optional[Number] = None,
    seed: Optional[Number] = None, confidence: Optional[float] = None,
    warmup: Optional[Number] = None, queries: Optional[Number] = None) -> Simulation:
    """The Section 6 stream experiment on a reference BTBF (``bfopt simulate btbf``):
    measured FP and penalties against the model. Runs with the GIL released."""
