"""The recycling Bloom filter: `bfopt model rbf`, `bfopt optimize rbf`."""

from typing import Any, Dict, Literal, Optional, Union

Number = Union[int, float]
Hashing = Literal["colliding", "distinct"]
Recycling = Literal["non-retaining", "retaining"]

def model(
    *,
    bits: Number,
    hashes: int,
    recycle_bits: Optional[Number] = None,
    recycle_messages: Optional[Number] = None,
    phases: Optional[int] = None,
    hashing: Hashing = "colliding",
    recycling: Recycling = "non-retaining",
    method: Literal["auto", "exact", "fluid"] = "auto",
) -> Dict[str, Any]:
    """`{"params": {...}, "metrics": {...}}` of an RBF."""

def optimize(
    *,
    fp: float,
    bits: Optional[Number] = None,
    messages: Optional[Number] = None,
    window: Optional[Number] = None,
    phases: Optional[int] = None,
    hashing: Hashing = "colliding",
    recycling: Recycling = "non-retaining",
) -> Dict[str, Any]:
    """Most messages in bits=M, or least memory for messages=N or window=W."""
