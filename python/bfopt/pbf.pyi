"""The persistent Bloom filter (PBF): the optimal bit split (``model``), the space bound
(``bound``), the allocation for a trace (``optimize``) and the synthetic-day experiment
(``simulate``), as ``bfopt model pbf``, ``bfopt model pbf-bound``, ``bfopt optimize pbf``
and ``bfopt simulate pbf``."""

from os import PathLike
from typing import Any, List, Optional, Sequence, Union

from ._result import Result, Results

Number = Union[int, float]


class Model(Result):
    """``bfopt model pbf``: per-filter bits and hashes, FP against the uniform split."""

    bits: Any
    bits_rounded: List[Any]
    distinct: List[Any]
    fp: float
    fp_rounded: float
    fp_uniform: float
    frequency: List[Any]
    hashes: List[Any]
    # lambda: float (a keyword: .metrics["lambda"])
    max_hashes: int

class Optimum(Result):
    """``bfopt optimize pbf``: the bit allocation for a trace."""

    bits: int
    distinct: int
    filters: int
    fp: float
    fp_rounded: float
    fp_sbf: float
    frequency: float
    granularity: int
    hashes_mean: float
    horizon: int
    # lambda: float (a keyword: .metrics["lambda"])
    level: str
    online: bool
    predicted_fp: float
    predicted_fp_uniform: float
    query_length: int
    variant: str

class Simulation(Result):
    """``bfopt simulate pbf``: predicted against measured FP on a synthetic day."""

    agrees: bool
    bits: int
    dataset: str
    entries: int
    false_negatives: int
    filters: int
    fp: float
    horizon: int
    items: int
    measured_fp: float
    measured_fp_hi: float
    measured_fp_lo: float
    method: str
    objective_fp: float
    online_exact: bool
    online_same_day: bool
    online_smoothing: float
    pairs: int
    probes_per_query: float
    queries: int
    query_length: int
    scale: float
    seed: int
    session_gap: float
    session_visits: float

class Bound(Result):
    """``bfopt model pbf-bound``: the memory bound of a PBF tree."""

    bits: float
    bits_levels: float
    bits_section_5_3: float
    fp: float
    granularity: int
    horizon: int
    insertions: int
    max_probes: int
    pairs: int
    probes: float
    query_length: int

def model(*, bits: Number, distinct: Sequence[Number], frequency: Sequence[float],
    max_hashes: Optional[Number] = None) -> Model:
    """The optimal split of ``bits`` bits over the filters of a PBF: filter i holds
    ``distinct[i]`` items and is probed with relative frequency ``frequency[i]`` (``bfopt
    model pbf``; Eqs. (10)-(13) [PBF])."""


def optimize(*, trace: Union[str, PathLike[str]], bits: Number, query_length: Number,
    variant: Optional[Number] = None, granularity: Optional[Number] = None,
    horizon: Optional[Number] = None, online: bool = False, queries: Optional[Number] = None,
    seed: Optional[Number] = None, max_hashes: Optional[Number] = None) -> Results[Optimum]:
    """The bit allocation of a PBF for the (item, timestamp) pairs of ``trace`` (a CSV path)
    and queries of ``query_length`` timestamps in ``bits`` bits (``bfopt optimize pbf``);
    ``variant``: 1 or 2 (default 2). Returns a :class:`bfopt.Results` list: the whole tree
    first, then one row per level. The allocation runs with the GIL released."""


def simulate(*, dataset: Optional[str] = None, scale: Optional[float] = None,
    method: Optional[str] = None, bits: Optional[Number] = None,
    query_length: Optional[Number] = None, horizon: Optional[Number] = None,
    figure: Optional[Number] = None, queries: Optional[Number] = None,
    granularity: Optional[Number] = None, max_hashes: Optional[Number] = None,
    seed: Optional[Number] = None, confidence: Optional[float] = None) -> Results[Simulation]:
    """Persistent Bloom filters on a synthetic day (``bfopt simulate pbf``): predicted
    against measured FP, one row per ``method`` (default: the methods of Table 2), a
    :class:`bfopt.Results` list. Runs with the GIL released."""


def bound(*, pairs: Number, horizon: Number, fp: float, query_length: Number,
    granularity: Optional[Number] = None) -> Bound:
    """The memory bound of a PBF tree holding ``pairs`` (item, timestamp) pairs over
    ``horizon`` timestamps for queries of ``query_length`` timestamps at FP ``fp`` (``bfopt
    model pbf-bound``; Eq. (14) [PBF])."""
