"""The results of the family verbs: one row of `bfopt VERB FAMILY --format json`.

A :class:`Result` has the row's ``family``, ``params`` and ``metrics``; every metric and
parameter is also an attribute (``r.fp`` is ``r.metrics["fp"]``; a name in both is the
metric). ``to_dict()`` is the CLI's JSON object, key for key. Verbs that print a list
(``bfopt optimize apbf --all``) return a :class:`Results` list with ``to_dict()`` the
CLI's JSON list.
"""

import copy
import json

from ._bfopt import run_verb


class Result:
    """One row of a family verb: ``family``, ``params``, ``metrics`` and their keys as
    attributes; ``to_dict()`` equals the CLI's JSON object."""

    __slots__ = ("_row",)

    def __init__(self, row):
        object.__setattr__(self, "_row", row)

    @property
    def family(self):
        """The family as the CLI names it in its JSON (``"classic"``, ``"timing"``, ...)."""
        return self._row["family"]

    @property
    def params(self):
        """The inputs (model parameters or the requirement), as in the CLI's JSON."""
        return self._row["params"]

    @property
    def metrics(self):
        """The outputs, as in the CLI's JSON."""
        return self._row["metrics"]

    def __getattr__(self, name):
        row = object.__getattribute__(self, "_row")
        for part in ("metrics", "params"):
            if name in row[part]:
                return row[part][name]
        raise AttributeError(f"{type(self).__name__} has no metric or parameter {name!r}")

    def __setattr__(self, name, value):
        raise AttributeError("bfopt results are read-only")

    def __dir__(self):
        return sorted({*object.__dir__(self), *self._row["params"], *self._row["metrics"]})

    def __eq__(self, other):
        return isinstance(other, Result) and self._row == other._row

    __hash__ = None

    def __reduce__(self):
        # Pickle and copy through the constructor (attributes cannot be set).
        return (type(self), (self._row,))

    def __repr__(self):
        shown = ", ".join(f"{k}={v!r}" for k, v in list(self._row["metrics"].items())[:6])
        more = ", ..." if len(self._row["metrics"]) > 6 else ""
        return f"{type(self).__name__}({self.family}: {shown}{more})"

    def to_dict(self):
        """The row as the CLI's JSON object (a deep copy)."""
        return copy.deepcopy(self._row)


class Results(list):
    """The rows of a verb that prints a list; ``to_dict()`` is the CLI's JSON list."""

    def to_dict(self):
        """The rows as the CLI's JSON list."""
        return [r.to_dict() for r in self]


def call(verb, family, kwargs, result=Result):
    """Runs ``bfopt VERB FAMILY`` with ``kwargs`` as flags; the result as ``result``."""
    data = json.loads(run_verb(verb, family, kwargs))
    if isinstance(data, list):
        return Results(result(r) for r in data)
    return result(data)
