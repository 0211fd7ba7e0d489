"""The importance-aware Bloom filter (IBF, or an SBF under the same costs): ``model``,
``optimize`` and ``simulate``, as ``bfopt model|optimize|simulate ibf``."""

from os import PathLike
from typing import Any, List, Optional, Sequence, Union

from ._result import Result, Results

Number = Union[int, float]


class Model(Result):
    """``bfopt model ibf``: stable point, FP, FN by importance."""

    age: int
    counter_bits: int
    crossover: None
    fn_by_importance: List[Any]
    fp: float
    imp_mapping: str
    importance: str
    importance_lo: int
    k: int
    m: int
    max: int
    member_share: float
    memory_bits: int
    method: Any
    p: int
    policy: str
    precision: float
    recall: float
    weighted_fn: float
    weighted_fp: float
    zero_cells: float
    zero_fraction: float

class Optimum(Result):
    """``bfopt optimize ibf``: the policy and parameters of least expected error cost."""

    age: int
    bits: int
    cells: int
    cost: float
    cost_fn: str
    cost_fp: str
    decrements: int
    evaluated: int
    fp: float
    hashes: int
    importance: str
    max: int
    member_share: float
    memory_bits: int
    policy: str
    weighted_fn: float
    zero_fraction: float

class Simulation(Result):
    """``bfopt simulate ibf``: the measured stable point against the model."""

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

def model(*, policy: str, cells: Number, hashes: Number, max: Number, decrements: Number,
    importance: Optional[str] = None, counter_bits: Optional[Number] = None,
    imp_map: Optional[str] = None, age: Optional[Number] = None,
    member_share: Optional[float] = None) -> Model:
    """Stable-point metrics of an importance-aware filter (``bfopt model ibf``)."""


def optimize(*, bits: Number, importance: Optional[str] = None, cost_fp: Optional[str] = None,
    cost_fn: Optional[str] = None, age: Optional[Number] = None,
    member_share: Optional[float] = None, policies: Optional[Sequence[str]] = None) -> Optimum:
    """The filter of least expected error cost for a memory budget of ``bits`` bits (``bfopt
    optimize ibf``); ``policies``: the policies tried (a list, default all);
    ``cost_fp``/``cost_fn``: cost expressions such as ``"1"`` and ``"1*imp"``."""


def simulate(*, policy: str, cells: Number, hashes: Number, max: Number, decrements: Number,
    importance: Optional[str] = None, counter_bits: Optional[Number] = None,
    imp_map: Optional[str] = None, steps: Optional[Number] = None, age: Optional[Number] = None,
    epochs: Optional[Number] = None, probes: Optional[Number] = None,
    seed: Optional[Number] = None, confidence: Optional[float] = None,
    arrivals: Optional[Number] = None, duplicates: Optional[float] = None) -> Simulation:
    """Runs a reference importance-aware filter to its stable point (``bfopt simulate
    ibf``). Runs with the GIL released."""
