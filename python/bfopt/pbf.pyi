"""The persistent Bloom filter: `bfopt model pbf`, `bfopt model pbf-bound`."""

from typing import Any, Dict, Optional, Sequence, Union

Number = Union[int, float]

def model(
    *,
    bits: Number,
    distinct: Sequence[float],
    frequency: Sequence[float],
    max_hashes: Optional[int] = None,
) -> Dict[str, Any]:
    """The optimal split of bits over the filters (`{"params", "metrics"}`)."""

def bound(
    *,
    pairs: Number,
    horizon: Number,
    fp: float,
    query_length: Number,
    granularity: Optional[Number] = None,
) -> Dict[str, Any]:
    """The memory bound of a PBF tree (`{"params", "metrics"}`)."""
