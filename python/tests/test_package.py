"""The installed package: imports, exports, stubs, docstrings whose examples run."""

import doctest
import inspect
import pathlib
import sys

import pytest

import bfopt

FAMILIES = ["classic", "apbf", "rbf", "btbf", "gbf", "sbf", "ibf", "pbf"]


def test_imports_on_a_supported_python():
    assert sys.version_info >= (3, 9)
    assert bfopt._bfopt.__file__.endswith((".so", ".pyd"))
    for name in bfopt.__all__:
        assert hasattr(bfopt, name), name


@pytest.mark.parametrize("family", FAMILIES)
def test_family_modules_import(family):
    import importlib

    module = importlib.import_module(f"bfopt.{family}")
    assert module is getattr(bfopt, family)
    assert module.__doc__


def test_exceptions():
    assert issubclass(bfopt.InvalidParameter, ValueError)
    assert issubclass(bfopt.Infeasible, Exception)
    assert issubclass(bfopt.SolverError, RuntimeError)


def test_stubs_ship_with_the_package():
    here = pathlib.Path(bfopt.__file__).parent
    for stub in ["__init__.pyi", "_result.pyi", *(f"{f}.pyi" for f in FAMILIES)]:
        assert (here / stub).is_file(), stub
    assert (here / "py.typed").is_file()


def test_help_names_every_keyword():
    params = inspect.signature(bfopt.recommend).parameters
    flags = ["fp", "capacity", "window", "horizon", "query_length", "pairs", "initial_capacity",
             "max_items", "memory", "max_accesses", "max_npws", "allow_fn", "duplicates",
             "importance", "penalties", "deletions"]
    assert list(params) == flags
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())
    doc = bfopt.recommend.__doc__
    for word in ["capacity=N", "InvalidParameter", "Infeasible", "to_dict", ">>>"]:
        assert word in doc
    assert str(inspect.signature(bfopt.Plan.validate)) == "(self, /, level='quick', seed=1)"


def docstrings():
    objects = [bfopt.recommend, bfopt.Plan.validate]
    for family in FAMILIES:
        module = getattr(bfopt, family)
        objects += [getattr(module, n) for n in dir(module) if not n.startswith("_")]
    return [o for o in objects if o.__doc__ and ">>>" in o.__doc__]


@pytest.mark.parametrize("obj", docstrings(), ids=lambda o: f"{getattr(o, '__module__', 'bfopt')}.{o.__qualname__}")
def test_docstring_examples_run(obj):
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(obj, obj.__qualname__, globs={"bfopt": bfopt}):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0
