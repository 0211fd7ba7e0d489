"""bfopt.rbf reproduces `bfopt model rbf` / `bfopt optimize rbf`."""

import pytest

import bfopt
import bfopt.rbf


@pytest.mark.parametrize(
    "func,kwargs,parameter",
    [
        ("model", dict(bits=0, hashes=7, recycle_bits=10), "bits"),
        ("model", dict(bits=1000, hashes=0, recycle_bits=10), "hashes"),
        ("model", dict(bits=1000, hashes=3, recycle_bits=5000), "recycle_bits"),
        ("model", dict(bits=1000, hashes=3), "recycle_bits/recycle_messages"),
        ("model", dict(bits=1000, hashes=3, recycle_bits=100, phases=3), "phases"),
        ("model", dict(bits=1000, hashes=3, recycle_bits=100, hashing="odd"), "hashing"),
        ("model", dict(bits=1000, hashes=3, recycle_messages=10, phases=2), "phases"),
        ("optimize", dict(fp=0.0, bits=1000), "fp"),
        ("optimize", dict(fp=0.01), "bits/messages/window"),
    ],
)
def test_invalid_parameters(func, kwargs, parameter):
    with pytest.raises(bfopt.InvalidParameter) as info:
        getattr(bfopt.rbf, func)(**kwargs)
    assert info.value.parameter == parameter
    assert info.value.value and info.value.allowed
