"""The results of the family verbs: one row of `bfopt VERB FAMILY --format json`."""

from typing import Any, Dict, List, TypeVar

R = TypeVar("R", bound="Result")

class Result:
    """One row of a family verb; every metric and parameter is also an attribute."""

    @property
    def family(self) -> str: ...
    @property
    def params(self) -> Dict[str, Any]: ...
    @property
    def metrics(self) -> Dict[str, Any]: ...
    def __getattr__(self, name: str) -> Any: ...
    def to_dict(self) -> Dict[str, Any]:
        """The row as the CLI's JSON object (a deep copy)."""

class Results(List[R]):
    """The rows of a verb that prints a list."""

    def to_dict(self) -> List[Dict[str, Any]]:
        """The rows as the CLI's JSON list."""
