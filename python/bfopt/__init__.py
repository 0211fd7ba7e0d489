"""bfopt: model, size and validate Bloom-filter variants.

The planner and the models of the ``bfopt`` command-line tool, as a Python package.

    import bfopt
    plan = bfopt.recommend(fp=0.01, window=1_000_000, max_accesses=8)
    plan.pick.design, plan.pick.candidate.params, plan.pick.reason
    plan.to_dict()       # the JSON of `bfopt recommend ... --format json`
    plan.to_pandas()     # one row per candidate (needs pandas)
    plan.validate()      # simulate every candidate (the GIL is released)
    bfopt.classic.optimize(fp=0.01, items=1_000_000)["params"]

Families with their `bfopt model` / `bfopt optimize` verbs: ``bfopt.classic``,
``bfopt.apbf``, ``bfopt.rbf``, ``bfopt.sbf``, ``bfopt.pbf``.

Bad input raises :class:`InvalidParameter` (a ``ValueError`` with ``.parameter``,
``.value``, ``.allowed``); an infeasible requirement raises :class:`Infeasible` (with
``.binding``, ``.achievable``, ``.excluded``).
"""

import sys as _sys

from ._bfopt import (
    Candidate,
    Infeasible,
    InvalidParameter,
    Pick,
    Plan,
    SolverError,
    Validation,
    apbf,
    classic,
    pbf,
    rbf,
    recommend,
    sbf,
)

# `import bfopt.classic` (and the other families) finds the native submodules.
_sys.modules[__name__ + ".classic"] = classic
_sys.modules[__name__ + ".apbf"] = apbf
_sys.modules[__name__ + ".rbf"] = rbf
_sys.modules[__name__ + ".sbf"] = sbf
_sys.modules[__name__ + ".pbf"] = pbf

__all__ = [
    "Candidate",
    "Infeasible",
    "InvalidParameter",
    "Pick",
    "Plan",
    "SolverError",
    "Validation",
    "apbf",
    "classic",
    "pbf",
    "rbf",
    "recommend",
    "sbf",
]
