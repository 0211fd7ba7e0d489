"""The classic Bloom filter: `bfopt model classic` and `bfopt optimize classic`."""

from typing import Any, Dict, Literal, Optional, Union

Number = Union[int, float]
Layout = Literal["standard", "partitioned", "blocked"]

def model(
    *,
    bits: Number,
    hashes: int,
    items: Number,
    layout: Layout = "standard",
    block_bits: Optional[int] = None,
) -> Dict[str, Any]:
    """`{"params": {...}, "metrics": {...}}` of a filter of `bits` bits and `hashes` hashes."""

def optimize(
    *,
    fp: Optional[float] = None,
    items: Optional[Number] = None,
    bits: Optional[Number] = None,
    hashes: Optional[int] = None,
    max_hashes: Optional[int] = None,
    layout: Layout = "standard",
    block_bits: Optional[int] = None,
) -> Dict[str, Any]:
    """Size (fp, items), best k (bits, items) or capacity (bits, hashes, fp)."""
