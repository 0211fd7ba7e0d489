"""bfopt.sbf reproduces `bfopt model sbf` / `bfopt optimize sbf`."""

import pytest

import bfopt
import bfopt.sbf


def test_optimized_decrements_meet_the_target():
    d = bfopt.sbf.optimize(cells=1_000_000, hashes=3, max=3, fp=0.01)
    p = d.decrements
    assert d.fp <= 0.01
    # One decrement fewer misses the target: P is the least that meets it.
    assert bfopt.sbf.model(cells=1_000_000, hashes=3, max=3, decrements=p - 1).fp > 0.01


@pytest.mark.parametrize(
    "func,kwargs,parameter",
    [
        ("model", dict(cells=0, hashes=3, max=3, decrements=10), "cells"),
        ("model", dict(cells=1000, hashes=0, max=3, decrements=10), "hashes"),
        ("model", dict(cells=1000, hashes=3, max=0, decrements=10), "max"),
        ("model", dict(cells=1000, hashes=3, max=3, decrements=0), "decrements"),
        ("optimize", dict(cells=1000, hashes=3, max=3, fp=1.5), "fp"),
    ],
)
def test_invalid_parameters(func, kwargs, parameter):
    with pytest.raises(bfopt.InvalidParameter) as info:
        getattr(bfopt.sbf, func)(**kwargs)
    assert info.value.parameter == parameter
    assert info.value.value and info.value.allowed
