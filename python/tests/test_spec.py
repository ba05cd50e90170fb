"""The binding against the op spec: every op of spec/ops.h has an explicit Python
function whose parameters are the C parameters by name and in order (the stream
keyword-only, last), and the ctypes declarations the binding derives from the loaded
library's opkit_op_schema() equal the spec."""
import inspect

import pytest

import opkit
from spec import spec_ops

OPS = spec_ops()


def test_the_spec_lists_ops():
    assert len(OPS) >= 18
    assert all(params and params[-1] == ("stream", "stream") for _, params in OPS)


@pytest.mark.parametrize("name,params", OPS, ids=[n for n, _ in OPS])
def test_every_op_has_a_wrapper_with_the_c_parameter_names(name, params):
    fn = getattr(opkit, name, None)
    assert inspect.isfunction(fn), f"opkit.{name} is missing: add it to python/opkit/_ops.py"
    sig = inspect.signature(fn).parameters
    positional = [p.name for p in sig.values() if p.kind == p.POSITIONAL_OR_KEYWORD]
    assert positional == [n for kind, n in params if kind != "stream"]
    assert "stream" in sig and sig["stream"].kind == inspect.Parameter.KEYWORD_ONLY
    assert list(sig)[-1] == "stream"
    # Optional tensors, and only those, may default to None.
    for kind, n in params[:-1]:
        if sig[n].default is None:
            assert kind in ("opt_in", "opt_out"), f"{name}: {n} is {kind} but defaults to None"


@pytest.mark.parametrize("name,params", OPS, ids=[n for n, _ in OPS])
def test_the_loaded_library_declares_the_spec(name, params):
    assert opkit.op_schema(name) == params


def test_no_wrapper_without_a_spec_op():
    spec_names = {n for n, _ in OPS}
    library_names = set(opkit.op_names())
    assert library_names == spec_names
