"""The Stable Bloom filter (SBF): ``model``, ``optimize`` and ``simulate``, as ``bfopt
model|optimize|simulate sbf``."""

from os import PathLike
from typing import Any, List, Optional, Sequence, Union

from ._result import Result, Results

Number = Union[int, float]


class Model(Result):
    """``bfopt model sbf``: stable-point zero fraction, FP, FN by age."""

    age: int
    fn_at_age: float
    fn_half_life: int
    fn_limit: float
    fp: float
    insertions: int
    k: int
    m: int
    max: int
    memory_bits: int
    p: int
    zero_cells: float
    zero_fraction: float
    zero_fraction_after: float
    zero_fraction_chain: float

class Optimum(Result):
    """``bfopt optimize sbf``: the decrements per insertion meeting the FP target."""

    decrements: int
    decrements_real: float
    fp: float
    fp_target: float
    k: int
    m: int
    max: int
    memory_bits: int
    zero_fraction: float

class Simulation(Result):
    """``bfopt simulate sbf``: the measured stable point against the model."""

    age: int
    confidence: float
    counter_bits: int
    epochs: int
    fp: float
    imp_mapping: str
    importance: str
    k: int
    m: int
    max: int
    measured_fn_by_importance: List[Any]
    measured_fp: float
    measured_fp_hi: float
    measured_fp_lo: float
    measured_weighted_fn: float
    measured_weighted_fn_hi: float
    measured_weighted_fn_lo: float
    measured_zero_fraction: float
    measured_zero_fraction_hi: float
    measured_zero_fraction_lo: float
    p: int
    policy: str
    seed: int
    steps: int
    warmup: int
    weighted_fn: float
    zero_fraction: float

def model(*, cells: Number, hashes: Number, max: Number, decrements: Number,
    age: Optional[Number] = None, insertions: Optional[Number] = None) -> Model:
    """Stable-point metrics of an SBF of ``cells`` cells counting to ``max``, ``hashes``
    cells set and ``decrements`` cells decremented per insertion (``bfopt model sbf``);
    ``age``: the FN of an item that old; ``insertions``: the zero fraction after that many
    insertions from empty."""


def optimize(*, cells: Number, hashes: Number, max: Number, fp: float) -> Optimum:
    """The decrements per insertion P bringing the stable-point FP to at most ``fp``
    (``bfopt optimize sbf``; Eq. (17) [SBF] solved for P)."""


def simulate(*, cells: Number, hashes: Number, max: Number, decrements: Number,
    steps: Optional[Number] = None, age: Optional[Number] = None,
    epochs: Optional[Number] = None, probes: Optional[Number] = None,
    seed: Optional[Number] = None, confidence: Optional[float] = None) -> Simulation:
    """Runs a reference SBF to its stable point (``bfopt simulate sbf``): measured against
    predicted. Runs with the GIL released."""
