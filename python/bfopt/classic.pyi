"""The classic Bloom filter (standard, partitioned or blocked): ``model``, ``optimize`` and
``simulate``, as ``bfopt model|optimize|simulate classic``."""

from os import PathLike
from typing import Any, List, Optional, Sequence, Union

from ._result import Result, Results

Number = Union[int, float]


class Model(Result):
    """``bfopt model classic``: FP (the layout's law), fill, memory, accesses."""

    accesses_insert: float
    accesses_query_false: float
    accesses_query_true: float
    bits_per_item: float
    block_bits: int
    fill: float
    fp: float
    fp_approx: float
    fp_exact: float
    fp_law: str
    k: int
    layout: str
    m: int
    memory_bytes: int
    n: int

class Optimum(Result):
    """``bfopt optimize classic``: the sized filter (``bits``, ``hashes``), its FP, or
    the ``capacity`` of a given filter."""

    accesses_insert: float
    accesses_query_false: float
    accesses_query_true: float
    bits: int
    bits_per_item: float
    capacity: int
    fill: float
    fp: float
    fp_approx: float
    fp_exact: float
    fp_law: str
    fp_target: float
    hashes: int
    k: int
    k_max: int
    layout: str
    m: int
    memory_bytes: int
    n: int

class Simulation(Result):
    """``bfopt simulate classic``: measured FP with its interval against the model
    (``agrees``)."""

    agrees: bool
    arrivals: float
    confidence: float
    epochs: int
    false_positives: int
    fill: float
    fp: float
    fp_exact: float
    k: int
    layout: str
    m: int
    measured_fill: float
    measured_fp: float
    measured_fp_hi: float
    measured_fp_lo: float
    n: int
    probes: int
    seed: int
    state_fp: float
    state_fp_hi: float
    state_fp_lo: float
    workload: str

def model(*, bits: Number, hashes: Number, items: Number, layout: Optional[str] = None,
    block_bits: Optional[Number] = None) -> Model:
    """Predicted metrics of a filter of ``bits`` bits and ``hashes`` hash functions holding
    ``items`` distinct items (``bfopt model classic``). ``layout``: ``"standard"``
    (default), ``"partitioned"`` or ``"blocked"`` (``block_bits``, default 512). ``fp`` is
    the layout's law: ``(1-(1-1/m)^(kn))^k`` for the standard layout (Eq. (1) [RBF])."""


def optimize(*, fp: Optional[float] = None, items: Optional[Number] = None,
    bits: Optional[Number] = None, hashes: Optional[Number] = None,
    max_hashes: Optional[Number] = None, layout: Optional[str] = None,
    block_bits: Optional[Number] = None) -> Optimum:
    """Sizes a classic filter (``bfopt optimize classic``); one of three questions: ``fp,
    items``: the smallest filter (``bits``, ``hashes``) holding ``items`` at FP at most
    ``fp`` (``hashes`` at most ``max_hashes``, default 64); ``bits, items``: the best number
    of hashes; ``bits, hashes, fp``: the capacity."""


def simulate(*, bits: Number, hashes: Number, items: Number, layout: Optional[str] = None,
    block_bits: Optional[Number] = None, epochs: Optional[Number] = None,
    probes: Optional[Number] = None, seed: Optional[Number] = None,
    workload: Optional[str] = None, duplicates: Optional[float] = None,
    universe: Optional[Number] = None, zipf_exponent: Optional[float] = None,
    trace: Optional[Union[str, PathLike[str]]] = None, confidence: Optional[float] = None
) -> Simulation:
    """Fills a reference filter and probes non-members (``bfopt simulate classic``): the
    measured FP with its ``confidence`` interval (default 0.99) against the model.
    ``workload``: ``"distinct"`` (default), ``"uniform"`` (with ``duplicates``), ``"zipf"``
    (``universe``, ``zipf_exponent``) or ``"window-repeats"``; ``trace``: a CSV of items
    instead. Runs with the GIL released."""
