"""The age-partitioned Bloom filter: `bfopt model apbf|apbbf`, `bfopt optimize apbf`."""

from typing import Any, Dict, List, Optional, Union

Number = Union[int, float]

def model(
    *,
    hashes: int,
    extra_slices: int,
    window: Optional[Number] = None,
    slice_bits: Optional[Number] = None,
    block_bits: Optional[int] = None,
    block_hashes: Optional[int] = None,
) -> Dict[str, Any]:
    """`{"params": {...}, "metrics": {...}}` of an APBF (an APBBF with block_bits/block_hashes)."""

def optimize(
    *,
    fp: float,
    window: Number,
    memory: Optional[Number] = None,
    max_accesses: Optional[float] = None,
    max_npws: Optional[float] = None,
    block_bits: Optional[int] = None,
    block_hashes: Optional[int] = None,
    all: bool = False,
) -> Union[Dict[str, Any], List[Dict[str, Any]]]:
    """The least-memory design meeting fp over the window (all=True: the Pareto set)."""
