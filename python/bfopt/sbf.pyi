"""The Stable Bloom filter: `bfopt model sbf`, `bfopt optimize sbf`."""

from typing import Any, Dict, Optional, Union

Number = Union[int, float]

def model(
    *,
    cells: Number,
    hashes: int,
    max: int,
    decrements: Number,
    age: Optional[Number] = None,
    insertions: Optional[Number] = None,
) -> Dict[str, Any]:
    """`{"params": {...}, "metrics": {...}}` at the stable point."""

def optimize(*, cells: Number, hashes: int, max: int, fp: float) -> Dict[str, Any]:
    """The decrements per insertion that bring the stable-point FP to at most fp."""
