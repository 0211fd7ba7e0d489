"""The age-partitioned Bloom filter (APBF) and its blocked variant (APBBF): ``model``,
``optimize`` and ``simulate``, as ``bfopt model apbf|apbbf``, ``bfopt optimize apbf`` and
``bfopt simulate apbf|apbbf``."""

from os import PathLike
from typing import Any, List, Optional, Sequence, Union

from ._result import Result, Results

Number = Union[int, float]


class Model(Result):
    """``bfopt model apbf|apbbf``: FP, memory, accesses, false negatives by age."""

    accesses_false: float
    accesses_fp: float
    accesses_window: float
    bits_per_item: float
    block_bits: int
    block_hashes: int
    blocks: int
    capacity_ratio: float
    efficiency: float
    fp: float
    fp_apbf: float
    fp_average: float
    fp_paper: float
    generation: int
    k: int
    l: int
    npws: float
    npws_exact: float
    slack: int
    slice_bits: int
    total_bits: int
    window: int

class Optimum(Result):
    """``bfopt optimize apbf``: the least-memory design (``k``, ``l``) and its
    ``binding`` constraint."""

    accesses: float
    accesses_false: float
    accesses_fp: float
    binding: str
    bits_per_item: float
    block_bits: int
    block_hashes: int
    default: bool
    fp: float
    fp_target: float
    generation: int
    k: int
    l: int
    max_accesses: float
    max_npws: float
    npws: float
    structure: str
    total_bits: int
    window: int

class Simulation(Result):
    """``bfopt simulate apbf|apbbf``: measured FP against the model (``agrees``)."""

    accesses_false: float
    accesses_fp: float
    accesses_window: float
    agrees: bool
    confidence: float
    epochs: int
    false_negatives: int
    fp: float
    fp_average: float
    fp_paper: float
    generations: int
    k: int
    l: int
    measured_accesses_false: float
    measured_accesses_fp: float
    measured_accesses_window: float
    measured_fp: float
    measured_fp_average: float
    measured_fp_average_hi: float
    measured_fp_average_lo: float
    measured_fp_hi: float
    measured_fp_lo: float
    probe_fp: float
    probe_fp_hi: float
    probe_fp_lo: float
    probes_per_point: int
    seed: int
    window: int
    window_checks: int
    workload: str

def model(*, hashes: Number, extra_slices: Number, window: Optional[Number] = None,
    slice_bits: Optional[Number] = None, block_bits: Optional[Number] = None,
    block_hashes: Optional[Number] = None) -> Model:
    """Predicted metrics of an APBF of ``hashes`` (k) + ``extra_slices`` (l) slices, sized
    for ``window`` items or with ``slice_bits`` bits per slice (``bfopt model apbf``); with
    ``block_bits`` and ``block_hashes``, an APBBF (``bfopt model apbbf``)."""


def optimize(*, fp: float, window: Number, memory: Optional[Number] = None,
    max_accesses: Optional[float] = None, max_npws: Optional[float] = None,
    blocked: bool = False, block_bits: Optional[Number] = None,
    block_hashes: Optional[Number] = None, all: bool = False
) -> Union[Optimum, Results[Optimum]]:
    """The least-memory APBF (k, l) meeting ``fp`` over a sliding ``window`` within the
    budgets (``bfopt optimize apbf``); ``blocked=True``: an APBBF; ``all=True``: the Pareto
    set, a :class:`bfopt.Results` list."""


def simulate(*, hashes: Number, extra_slices: Number, window: Optional[Number] = None,
    slice_bits: Optional[Number] = None, block_bits: Optional[Number] = None,
    block_hashes: Optional[Number] = None, generations: Optional[Number] = None,
    phases: Optional[Number] = None, epochs: Optional[Number] = None,
    probes: Optional[Number] = None, seed: Optional[Number] = None,
    workload: Optional[str] = None, duplicates: Optional[float] = None,
    universe: Optional[Number] = None, zipf_exponent: Optional[float] = None,
    trace: Optional[Union[str, PathLike[str]]] = None, confidence: Optional[float] = None
) -> Simulation:
    """Streams through a reference APBF (an APBBF with ``block_bits``/``block_hashes``) for
    ``generations`` generations (``bfopt simulate apbf|apbbf``): measured FP, accesses and
    false negatives against the model. Runs with the GIL released."""
