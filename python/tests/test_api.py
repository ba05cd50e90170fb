"""The non-op API through the binding: versions, errors, runtime and loader state,
logging, memory and streams — including real fake-vendor .so files (their directory is
$OPKIT_TEST_FAKE_VENDORS, set by ctest)."""
import ctypes
import os
import re

import numpy as np
import pytest

import opkit
from spec import spec_ops

FAKE = os.environ.get("OPKIT_TEST_FAKE_VENDORS")
needs_fakes = pytest.mark.skipif(not FAKE, reason="OPKIT_TEST_FAKE_VENDORS is not set "
                                                  "(run through ctest)")

EXPECTED_OPS = [name for name, _ in spec_ops()]


@pytest.fixture
def fresh():
    """A runtime with no vendors at all, restored to the default afterwards."""
    opkit.shutdown()
    opkit.init(vendor_path="/nonexistent-opkit-test-dir")
    yield
    opkit.shutdown()


def test_version_matches_the_header():
    header = open(os.path.join(os.path.dirname(__file__), "..", "..", "include", "opkit.h")).read()
    parts = [re.search(r"#define OPKIT_VERSION_%s (\d+)" % p, header).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    assert opkit.version() == ".".join(parts)


def test_ops_are_listed_in_header_order():
    assert opkit.op_names() == EXPECTED_OPS


def test_cpu_ops_resolve_to_the_defaults(fresh):
    for op in EXPECTED_OPS:
        assert opkit.op_resolve(op, "cpu") == "default"
    assert opkit.device_count("cpu") == 1


def test_unknown_op_raises_not_found():
    with pytest.raises(opkit.NotFoundError) as e:
        opkit.op_resolve("no_such_op")
    assert e.value.status == opkit.ERROR_NOT_FOUND
    assert e.value.status_name == "OPKIT_ERROR_NOT_FOUND"
    assert "no_such_op" in e.value.message
    assert isinstance(e.value, LookupError)


def test_status_strings_are_pinned():
    assert opkit.status_string(0) == "OPKIT_OK"
    assert opkit.status_string(2) == "OPKIT_ERROR_UNSUPPORTED"
    assert opkit.status_string(99) == "OPKIT_ERROR_UNKNOWN_STATUS"


def test_init_twice_is_invalid(fresh):
    with pytest.raises(opkit.InvalidArgumentError, match="already"):
        opkit.init()


def test_bad_call_raises_and_changes_nothing():
    x = np.ones((4, 8), np.float32)
    y = np.full((4, 9), 7.0, np.float32)
    with pytest.raises(opkit.InvalidArgumentError) as e:
        opkit.softmax_forward(x, y)
    assert "shape" in e.value.message
    assert isinstance(e.value, ValueError)
    assert np.all(y == 7.0)


def test_unsupported_dtype_raises_unsupported():
    x = np.ones((2, 4), np.float64)
    with pytest.raises(opkit.UnsupportedError):
        opkit.softmax_forward(x, np.empty_like(x))


def test_mixed_dtypes_are_invalid():
    with pytest.raises(opkit.InvalidArgumentError):
        opkit.softmax_forward(np.ones((2, 4), np.float32), np.empty((2, 4), np.float16))


def test_out_of_range_target_is_invalid_and_writes_nothing():
    logits = np.ones((2, 5), np.float32)
    loss = np.full(2, 3.0, np.float32)
    with pytest.raises(opkit.InvalidArgumentError):
        opkit.cross_entropy_forward(logits, np.array([1, 5]), -100, 0.0, 0, loss)
    assert np.all(loss == 3.0)


def test_non_tensor_argument_is_a_type_error():
    with pytest.raises(TypeError):
        opkit.softmax_forward([1.0, 2.0], np.empty(2, np.float32))


def test_null_where_required_is_invalid():
    with pytest.raises(opkit.InvalidArgumentError):
        opkit.softmax_forward(None, np.empty(2, np.float32))


def test_host_memory_round_trip():
    src = np.arange(16, dtype=np.float32)
    dst = np.zeros_like(src)
    ptr = opkit.malloc("cpu", src.nbytes)
    try:
        opkit.memcpy(ptr, "cpu", src.ctypes.data, "cpu", src.nbytes)
        opkit.memcpy(dst.ctypes.data, "cpu", ptr, "cpu", src.nbytes)
    finally:
        opkit.free("cpu", ptr)
    np.testing.assert_array_equal(dst, src)


def test_cpu_stream_is_the_null_stream():
    s = opkit.stream_create("cpu")
    assert s == 0
    opkit.synchronize("cpu", s)
    opkit.stream_destroy("cpu", s)


def test_device_spellings():
    assert (opkit.as_device("cuda:3").device_type, opkit.as_device("cuda:3").device_id) == (2, 3)
    assert opkit.as_device((1, 0)).device_type == opkit.DEVICE_CPU
    with pytest.raises(ValueError):
        opkit.as_device("tpu")


def test_unknown_device_type_is_not_found(fresh):
    with pytest.raises(opkit.NotFoundError):
        opkit.malloc((16, 0), 64)


def test_log_callback_receives_messages_and_survives_a_raising_callback():
    seen = []
    opkit.shutdown()
    opkit.set_log_callback(lambda level, msg: seen.append((level, msg)))
    try:
        opkit.init(vendor_path="/nonexistent-opkit-test-dir", log_level=opkit.LOG_TRACE)
        assert seen and all(isinstance(m, str) for _, m in seen)

        def boom(level, msg):
            raise RuntimeError("must not reach C")
        opkit.set_log_callback(boom)
        opkit.shutdown()
        opkit.init(vendor_path="/nonexistent-opkit-test-dir", log_level=opkit.LOG_TRACE)
    finally:
        opkit.set_log_callback(None)
        opkit.shutdown()


def fake_vendors():
    # Vendors installed next to libopkit (the cuda vendor in a CUDA build) are found as well;
    # these tests are about the fake ones only.
    return [v for v in opkit.vendors() if v.path.startswith(FAKE + os.sep)]


@needs_fakes
def test_fake_vendor_overrides_only_what_it_exports():
    opkit.shutdown()
    opkit.init(vendor_path=os.path.join(FAKE, "subset"))
    try:
        (v,) = fake_vendors()
        assert (v.name, v.state_name, v.device_type) == ("subset", "READY", opkit.DEVICE_CPU)
        assert opkit.op_resolve("softmax_forward", "cpu") == "subset"
        assert opkit.op_resolve("rms_norm_forward", "cpu") == "default"
    finally:
        opkit.shutdown()


@needs_fakes
def test_failing_vendors_report_state_and_reason():
    opkit.shutdown()
    path = ":".join(os.path.join(FAKE, d) for d in ("init_fails", "wrong_abi", "unresolved"))
    opkit.init(vendor_path=path)
    try:
        states = {v.name or os.path.basename(v.path): v for v in fake_vendors()}
        by_state = sorted(v.state_name for v in states.values())
        assert by_state == ["INCOMPATIBLE", "INIT_FAILED", "LOAD_FAILED"]
        assert all(v.detail for v in states.values())
        x = np.ones((2, 3), np.float32)
        y = np.empty_like(x)
        opkit.softmax_forward(x, y)  # the defaults still serve every op
        np.testing.assert_allclose(y, 1 / 3, rtol=1e-6)
    finally:
        opkit.shutdown()


@needs_fakes
def test_pretend_accelerator_memory_through_the_binding():
    opkit.shutdown()
    opkit.init(vendor_path=os.path.join(FAKE, "accel"))
    try:
        dev = (16, 0)
        assert opkit.device_count(16) >= 1
        ptr = opkit.malloc(dev, 64)
        src = (ctypes.c_char * 64)(*b"x" * 64)
        dst = (ctypes.c_char * 64)()
        opkit.memcpy(ptr, dev, ctypes.addressof(src), "cpu", 64)
        opkit.memcpy(ctypes.addressof(dst), "cpu", ptr, dev, 64)
        opkit.synchronize(dev)
        opkit.free(dev, ptr)
        assert bytes(dst) == b"x" * 64
    finally:
        opkit.shutdown()


def test_last_dispatch_says_who_served_the_call(fresh):
    assert opkit.last_dispatch() is None  # no op call on this thread since init
    x = np.random.default_rng(3).standard_normal((3, 5)).astype(np.float32)
    y = np.full_like(x, np.nan)
    opkit.softmax_forward(x, y)
    d = opkit.last_dispatch()
    assert (d.op, d.device_type, d.status, d.served_by, d.declined) == (
        "softmax_forward", opkit.DEVICE_CPU, opkit.OK, "default", 0)
    with pytest.raises(opkit.InvalidArgumentError):
        opkit.softmax_forward(x, np.zeros((3, 4), np.float32))
    d = opkit.last_dispatch()
    assert d.op == "softmax_forward" and d.status == opkit.ERROR_INVALID_ARGUMENT and d.served_by == ""


@needs_fakes
def test_last_dispatch_counts_a_decline():
    opkit.shutdown()
    opkit.init(vendor_path=os.path.join(FAKE, "decliner"))
    try:
        x = np.random.default_rng(4).standard_normal((2, 3)).astype(np.float32)  # odd rows: declined
        y = np.empty_like(x)
        opkit.softmax_forward(x, y)
        d = opkit.last_dispatch()
        assert (d.served_by, d.declined, d.first_declined_by) == ("default", 1, "decliner")
    finally:
        opkit.shutdown()


FIRST_CALLS = r"""
import threading
import numpy as np
import opkit

def first_axpy(alpha, out):
    x = np.ones(7, np.float32)
    y = np.zeros(7, np.float32)
    opkit.axpy(alpha, x, y)
    out.append(y.tolist() == [alpha] * 7)

results = []
first_axpy(2.0, results)  # the process's first op call: no opkit.init before it
threads = [threading.Thread(target=first_axpy, args=(a, results)) for a in (3.0, 5.0, 7.0)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(results)
assert results == [True] * 4, results
"""


def test_each_threads_first_call_gets_its_float_arguments():
    # In a fresh process, as an application sees it: the first op call of the process
    # (implicit init) and of each new thread. With x86-64 TLS descriptors and glibc < 2.40
    # these lost their float arguments (axpy's alpha read as 0) and returned OPKIT_OK
    # (docs/decisions.md; tests/linkage/first_call_after_dlopen.c does the same in C).
    import subprocess
    import sys
    from opkit import _library
    env = dict(os.environ, OPKIT_VENDORS_DISABLE="cuda,rocm,ascend,blas",
               OPKIT_LIBRARY=_library.LIBRARY_PATH,
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(opkit.__file__))))
    r = subprocess.run([sys.executable, "-c", FIRST_CALLS], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
