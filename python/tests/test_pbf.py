"""bfopt.pbf reproduces `bfopt model pbf` / `bfopt model pbf-bound`."""

import pytest

import bfopt
import bfopt.pbf


def test_allocation_spends_the_bits():
    a = bfopt.pbf.model(bits=100_000, distinct=[1000, 4000], frequency=[0.5, 0.5])
    assert a.params["bits"] == 100_000
    assert sum(a.bits_rounded) == 100_000
    assert a.fp_rounded <= a.fp_uniform


@pytest.mark.parametrize(
    "func,kwargs,parameter",
    [
        ("model", dict(bits=0, distinct=[1.0], frequency=[1.0]), "bits"),
        ("model", dict(bits=1000, distinct="many", frequency=[1.0]), "distinct"),
        ("model", dict(bits=1000, distinct=[1.0], frequency=[1.0], max_hashes=100), "max_hashes"),
        ("bound", dict(pairs=10, horizon=100, fp=2.0, query_length=4), "fp"),
        ("bound", dict(pairs=0, horizon=100, fp=0.1, query_length=4), "pairs"),
    ],
)
def test_invalid_parameters(func, kwargs, parameter):
    with pytest.raises(bfopt.InvalidParameter) as info:
        getattr(bfopt.pbf, func)(**kwargs)
    assert info.value.parameter == parameter
    assert info.value.value and info.value.allowed
