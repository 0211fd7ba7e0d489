"""The recycling Bloom filter (RBF): ``model``, ``optimize`` and ``simulate``, as ``bfopt
model|optimize|simulate rbf``."""

from os import PathLike
from typing import Any, List, Optional, Sequence, Union

from ._result import Result, Results

Number = Union[int, float]


class Model(Result):
    """``bfopt model rbf``: FP at the end of a cycle and on average, messages per cycle."""

    bits: int
    expected_messages: float
    expected_messages_paper: float
    fn_window: int
    fp_avg: float
    fp_avg_paper: float
    fp_frozen: float
    fp_lower: float
    fp_oracle: float
    fp_worst: float
    hashing: str
    k: int
    m: int
    method: str
    min_messages: int
    n: int
    phases: int
    recycling: str
    sigma: int

class Optimum(Result):
    """``bfopt optimize rbf``: (k, sigma) with the most messages, or the least memory."""

    bits: int
    expected_messages: float
    expected_messages_paper: float
    fn_window: int
    fp_avg: float
    fp_avg_paper: float
    fp_frozen: float
    fp_target: float
    hashing: str
    k: int
    method: str
    min_messages: int
    phases: int
    recycling: str
    sigma: int
    worst_case_hashes: int
    worst_case_messages: int
    worst_case_ratio: float

class Simulation(Result):
    """``bfopt simulate rbf``: false positives counted three ways against the model."""

    agrees: bool
    arrivals: int
    bits: int
    confidence: float
    cycles: int
    epochs: int
    expected_messages: float
    fp_avg: float
    hashing: str
    k: int
    measured_fp: float
    measured_fp_each: float
    measured_fp_first: float
    measured_fp_hi: float
    measured_fp_lo: float
    measured_messages: float
    measured_messages_hi: float
    measured_messages_lo: float
    phases: int
    recycling: str
    seed: int
    sigma: int
    stream: str

def model(*, bits: Number, hashes: Number, recycle_bits: Optional[Number] = None,
    recycle_messages: Optional[Number] = None, phases: Optional[Number] = None,
    hashing: Optional[str] = None, recycling: Optional[str] = None, method: Optional[str] = None
) -> Model:
    """Predicted metrics of an RBF of ``bits`` bits and ``hashes`` hashes, recycled after
    ``recycle_bits`` set bits (sigma) or ``recycle_messages`` messages (``bfopt model rbf``;
    Eqs. (1)-(3) [RBF]). ``method``: ``"auto"``, ``"exact"`` (the Markov chain) or
    ``"fluid"``."""


def optimize(*, fp: float, bits: Optional[Number] = None, messages: Optional[Number] = None,
    window: Optional[Number] = None, phases: Optional[Number] = None,
    hashing: Optional[str] = None, recycling: Optional[str] = None) -> Optimum:
    """``bits``: the (k, sigma) with the most messages per cycle at FP ``fp``; ``messages``
    or ``window``: the least memory (``bfopt optimize rbf``)."""


def simulate(*, bits: Number, hashes: Number, recycle_bits: Optional[Number] = None,
    recycle_messages: Optional[Number] = None, phases: Optional[Number] = None,
    hashing: Optional[str] = None, recycling: Optional[str] = None,
    method: Optional[str] = None, epochs: Optional[Number] = None,
    arrivals: Optional[Number] = None, pool: Optional[Number] = None,
    seed: Optional[Number] = None, confidence: Optional[float] = None) -> Simulation:
    """Runs a reference RBF on a stream of ``arrivals`` messages per epoch (``bfopt simulate
    rbf``): false positives against the model. Runs with the GIL released."""
