"""Writes the type stubs of the family modules (bfopt/<family>.pyi) from the installed
package: each function's keyword arguments, and each result class's attributes with the
metrics and parameters its cases in cases.py return (test_package.py checks that every
attribute a case returns is declared).

Run after installing the package (maturin develop): python python/tests/make_stubs.py
"""

import inspect
import keyword
import pathlib
import textwrap
from collections import defaultdict

import bfopt
from cases import FAMILY_CASES

FAMILIES = ["classic", "apbf", "rbf", "btbf", "gbf", "sbf", "ibf", "pbf"]
CLASSES = {"model": "Model", "optimize": "Optimum", "posterior": "Posterior",
           "simulate": "Simulation", "bound": "Bound"}
MODULES = {"apbbf": "apbf", "pbf-bound": "pbf"}
OUT = pathlib.Path(__file__).resolve().parent.parent / "bfopt"

STRINGS = {"layout", "hashing", "recycling", "method", "prior", "penalties", "objective",
           "g_form", "policy", "importance", "imp_map", "cost_fp", "cost_fn", "workload",
           "dataset"}
REALS = {"fp", "px", "confidence", "duplicates", "zipf_exponent", "member_share", "scale",
         "max_accesses", "max_npws", "bits_per_item", "penalty_fp", "penalty_fn"}
FLAGS = {"all", "blocked", "online", "distinct_decay"}
SPECIAL = {
    ("pbf", "distinct"): "Sequence[Number]",
    ("btbf", "distinct"): "str",
    ("pbf", "frequency"): "Sequence[float]",
    ("ibf", "policies"): "Sequence[str]",
    ("btbf", "timestamp_age"): "Union[int, str]",
}


def argument(family, name):
    if (family, name) in SPECIAL:
        return SPECIAL[(family, name)]
    if name == "trace":
        return "Union[str, PathLike[str]]"
    if name in STRINGS:
        return "str"
    if name in REALS:
        return "float"
    if name in FLAGS:
        return "bool"
    return "Number"


def wrapped(head, items, tail, width=96):
    """`head item, item, ... tail` in lines of at most `width` characters."""
    lines, line = [], head
    for i, item in enumerate(items):
        piece = item + (", " if i + 1 < len(items) else "")
        if len(line) + len(piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = "    " + piece
        else:
            line += piece
    if len(line) + len(tail) > width:
        lines.append(line.rstrip())
        line = ""
    lines.append(line + tail)
    return lines


def value_type(values):
    names = set()
    for v in values:
        if isinstance(v, bool):
            names.add("bool")
        elif isinstance(v, int):
            names.add("int")
        elif isinstance(v, float):
            names.add("float")
        elif isinstance(v, str):
            names.add("str")
        elif isinstance(v, list):
            names.add("List[Any]")
        elif v is None:
            names.add("None")
        else:
            names.add("Any")
    if names == {"int", "float"}:
        names = {"float"}
    if len(names) == 1:
        return names.pop()
    optional = "None" in names
    names.discard("None")
    inner = names.pop() if len(names) == 1 else "Any"
    return f"Optional[{inner}]" if optional else inner


def attributes():
    """(family, class) -> {name: [values]} over the cases, and (family, function) ->
    whether each case returned a list."""
    found = defaultdict(lambda: defaultdict(list))
    lists = defaultdict(set)
    for _name, verb, _flags, func, kwargs in FAMILY_CASES:
        family = MODULES.get(verb[1], verb[1])
        got = getattr(getattr(bfopt, family), func)(**kwargs)
        lists[(family, func)].add(isinstance(got, list))
        for row in got if isinstance(got, list) else [got]:
            for part in ("params", "metrics"):
                for k, v in row.to_dict()[part].items():
                    found[(family, CLASSES[func])][k].append(v)
    return found, lists


def main():
    found, lists = attributes()
    for family in FAMILIES:
        module = getattr(bfopt, family)
        head = " ".join(module.__doc__.strip().split("\n\n")[0].split())
        lines = [*textwrap.wrap(f'"""{head}"""', 92), "",
                 "from os import PathLike",
                 "from typing import Any, List, Optional, Sequence, Union", "",
                 "from ._result import Result, Results", "",
                 "Number = Union[int, float]", ""]
        for func, cls in CLASSES.items():
            if not hasattr(module, cls):
                continue
            lines += ["", f"class {cls}(Result):", f'    """{getattr(module, cls).__doc__}"""', ""]
            for k, values in sorted(found[(family, cls)].items()):
                if keyword.iskeyword(k):  # not an attribute name: r.metrics["lambda"]
                    lines.append(f'    # {k}: {value_type(values)} (a keyword: .metrics["{k}"])')
                else:
                    lines.append(f"    {k}: {value_type(values)}")
        for func in CLASSES:
            f = getattr(module, func, None)
            if f is None:
                continue
            args = []
            for p in inspect.signature(f).parameters.values():
                t = argument(family, p.name)
                if p.default is inspect.Parameter.empty:
                    args.append(f"{p.name}: {t}")
                elif p.default is None:
                    args.append(f"{p.name}: Optional[{t}] = None")
                else:
                    args.append(f"{p.name}: {t} = {p.default!r}")
            result = CLASSES[func]
            shapes = lists[(family, func)]
            if shapes == {True}:
                result = f"Results[{result}]"
            elif shapes == {True, False}:
                result = f"Union[{result}, Results[{result}]]"
            summary = f.__doc__.strip().split("\n\n")[0]
            summary = " ".join(line.strip() for line in summary.splitlines())
            doc = textwrap.wrap(f'"""{summary}"""', 92, initial_indent="    ",
                                subsequent_indent="    ")
            lines += ["", *wrapped(f"def {func}(*, ", args, f") -> {result}:"), *doc, ""]
        (OUT / f"{family}.pyi").write_text("\n".join(lines).rstrip() + "\n")
        print(f"wrote {OUT / f'{family}.pyi'}")


if __name__ == "__main__":
    main()
