"""Type stubs of bfopt: the planner and the models of the bfopt CLI for Python."""

from typing import Any, Dict, List, Literal, Optional, Tuple, Union

from . import apbf as apbf
from . import btbf as btbf
from . import classic as classic
from . import gbf as gbf
from . import ibf as ibf
from . import pbf as pbf
from . import rbf as rbf
from . import sbf as sbf
from ._result import Result as Result
from ._result import Results as Results

Number = Union[int, float]

class InvalidParameter(ValueError):
    """A parameter outside its allowed range."""

    parameter: str
    """The keyword argument's name (`fp`, `window`, `max_accesses`, ...)."""
    value: str
    """The value given, as text."""
    allowed: str
    """The allowed range, in words."""

class Infeasible(Exception):
    """No design meets the requirement."""

    binding: str
    """The constraint that binds."""
    achievable: str
    """The best that can be achieved when it is relaxed."""
    excluded: List[Dict[str, Any]]
    """Every family and design left out: `name`, `reason`, `budget` (if a budget)."""
    requirement: Dict[str, Any]
    """The requirement, echoed (planner infeasibility only)."""

class SolverError(RuntimeError):
    """A numerical solver of a model did not converge."""

class Candidate:
    """One design that meets the requirement."""

    @property
    def family(self) -> str: ...
    @property
    def design(self) -> str: ...
    @property
    def params(self) -> Dict[str, Number]: ...
    @property
    def bits(self) -> int: ...
    @property
    def bits_per_item(self) -> float: ...
    @property
    def fp(self) -> float: ...
    @property
    def fp_kind(self) -> str: ...
    @property
    def accesses_insert(self) -> float: ...
    @property
    def accesses_query(self) -> float: ...
    @property
    def access_unit(self) -> Literal["bit_probes", "cache_lines"]: ...
    @property
    def npws(self) -> Optional[float]: ...
    @property
    def slack(self) -> int: ...
    @property
    def false_negatives(self) -> Dict[str, Any]: ...
    @property
    def notes(self) -> List[str]: ...
    @property
    def not_simulated(self) -> Optional[str]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The candidate as in the JSON of `bfopt recommend`."""

class Pick:
    """The design to build, and why."""

    index: int
    design: str
    reason: str
    @property
    def candidate(self) -> Candidate: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Validation:
    """The simulations of `Plan.validate`."""

    @property
    def passed(self) -> bool: ...
    @property
    def designs(self) -> List[Dict[str, Any]]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Plan:
    """The ranked designs for a requirement."""

    @property
    def pick(self) -> Pick: ...
    @property
    def candidates(self) -> List[Candidate]: ...
    @property
    def excluded(self) -> List[Dict[str, Any]]: ...
    @property
    def notes(self) -> List[str]: ...
    @property
    def requirement(self) -> Dict[str, Any]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The JSON object of `bfopt recommend ... --format json`."""
    def to_pandas(self) -> Any:
        """The candidates as a pandas DataFrame (needs pandas)."""
    def validate(self, level: Literal["quick", "full"] = "quick", seed: int = 1) -> Validation:
        """Simulates every candidate (the GIL is released)."""
    def __len__(self) -> int: ...

def recommend(
    *,
    fp: float,
    capacity: Optional[Number] = None,
    window: Optional[Number] = None,
    horizon: Optional[Number] = None,
    query_length: Optional[Number] = None,
    pairs: Optional[Number] = None,
    initial_capacity: Optional[Number] = None,
    max_items: Optional[Number] = None,
    memory: Optional[Number] = None,
    max_accesses: Optional[float] = None,
    max_npws: Optional[float] = None,
    allow_fn: Optional[float] = None,
    duplicates: Optional[float] = None,
    importance: Optional[str] = None,
    penalties: Optional[Union[str, Tuple[float, float]]] = None,
    deletions: bool = False,
) -> Plan:
    """Every design that meets a requirement, least memory first, and the pick.

    >>> plan = bfopt.recommend(fp=0.01, window=1_000_000, max_accesses=8)
    >>> plan.pick.design
    'rotating/blocked'
    """
