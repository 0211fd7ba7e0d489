"""bfopt: model, size and validate Bloom-filter variants.

The planner and the models of the ``bfopt`` command-line tool, as a Python package.

    import bfopt
    plan = bfopt.recommend(fp=0.01, window=1_000_000, max_accesses=8)
    plan.pick.design, plan.pick.candidate.params, plan.pick.reason
    plan.to_dict()       # the JSON of `bfopt recommend ... --format json`
    plan.to_pandas()     # one row per candidate (needs pandas)
    plan.validate()      # simulate every candidate (the GIL is released)
    r = bfopt.classic.optimize(fp=0.01, items=1_000_000)
    r.bits, r.hashes, r.fp  # metrics and parameters are attributes
    r.to_dict()          # the JSON of `bfopt optimize classic ... --format json`

Families with the CLI's verbs (``model``, ``optimize``, ``posterior``, ``simulate``;
keyword arguments named like the flags): ``bfopt.classic``, ``bfopt.apbf``,
``bfopt.rbf``, ``bfopt.btbf``, ``bfopt.gbf``, ``bfopt.sbf``, ``bfopt.ibf``,
``bfopt.pbf``. They return a :class:`Result` (or a :class:`Results` list).

Bad input raises :class:`InvalidParameter` (a ``ValueError`` with ``.parameter``,
``.value``, ``.allowed``); an infeasible requirement raises :class:`Infeasible` (with
``.binding``, ``.achievable``, ``.excluded``).
"""

from ._bfopt import (
    Candidate,
    Infeasible,
    InvalidParameter,
    Pick,
    Plan,
    SolverError,
    Validation,
    recommend,
)
from ._result import Result, Results
from . import apbf, btbf, classic, gbf, ibf, pbf, rbf, sbf

__all__ = [
    "Candidate",
    "Infeasible",
    "InvalidParameter",
    "Pick",
    "Plan",
    "Result",
    "Results",
    "SolverError",
    "Validation",
    "apbf",
    "btbf",
    "classic",
    "gbf",
    "ibf",
    "pbf",
    "rbf",
    "recommend",
    "sbf",
]
