"""bfopt.rbf reproduces `bfopt model rbf` / `bfopt optimize rbf`."""

import pytest

import bfopt
import bfopt.rbf
from cases import RBF


@pytest.mark.parametrize("name,verb,flags,func,kwargs", RBF, ids=[c[0] for c in RBF])
def test_numbers_equal_cli(cli, name, verb, flags, func, kwargs):
    expected = cli(name, flags, verb)
    got = getattr(bfopt.rbf, func)(**kwargs)
    if func == "model":
        assert got == {"params": expected["params"], "metrics": expected["metrics"]}
        return
    # The CLI's row: the design's params plus fp_target, then the design's metrics and
    # the worst-case comparison (each quantity once: issue 16, bug 11).
    params = dict(expected["params"])
    assert got["fp_target"] == params.pop("fp_target")
    assert got["params"] == params
    metrics = dict(expected["metrics"])
    assert metrics.pop("worst_case_messages") == got["worst_case_messages"]
    assert metrics.pop("worst_case_hashes") == got["worst_case_hashes"]
    ratio = metrics.pop("worst_case_ratio")
    assert ratio == got["worst_case_messages"] / got["metrics"]["expected_messages"]
    assert got["metrics"] == metrics
    assert got["metrics"]["fp_avg"] <= kwargs["fp"]


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
