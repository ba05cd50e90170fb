"""Runtime, introspection, logging, memory and streams (the non-op part of opkit.h)."""
import ctypes
from collections import namedtuple

from ._errors import check
from ._library import LOG_FN, OP_SCHEMAS, Device, DispatchInfo, InitOptions, VendorInfo, lib
from ._tensors import DEVICE_ASCEND, DEVICE_CPU, DEVICE_CUDA, DEVICE_ROCM

VENDOR_READY = 0
VENDOR_NO_DEVICE = 1
VENDOR_INCOMPATIBLE = 2
VENDOR_LOAD_FAILED = 3
VENDOR_INIT_FAILED = 4
VENDOR_DISABLED = 5
_STATE_NAMES = ["READY", "NO_DEVICE", "INCOMPATIBLE", "LOAD_FAILED", "INIT_FAILED",
                "DISABLED"]

LOG_TRACE, LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR, LOG_OFF = range(6)

_DEVICE_NAMES = {"cpu": DEVICE_CPU, "cuda": DEVICE_CUDA, "rocm": DEVICE_ROCM,
                 "ascend": DEVICE_ASCEND, "npu": DEVICE_ASCEND}

VendorState = namedtuple("VendorState", "name path version device_type device_count state "
                                        "state_name detail op_count")


def as_device(device):
    """opkit_device from "cuda:1", "cpu", (type, id), a device type int, or a Device."""
    if isinstance(device, Device):
        return device
    if isinstance(device, str):
        kind, _, index = device.partition(":")
        if kind not in _DEVICE_NAMES:
            raise ValueError(f"opkit: unknown device {device!r}")
        return Device(_DEVICE_NAMES[kind], int(index or 0))
    if isinstance(device, int):
        return Device(device, 0)
    device_type, device_id = device
    return Device(int(device_type), int(device_id))


def version():
    """"major.minor.patch" of the loaded libopkit."""
    v = lib.opkit_version()
    return f"{v >> 16}.{(v >> 8) & 0xFF}.{v & 0xFF}"


def _c_str(s):
    return None if s is None else s.encode()


def init(vendor_path=None, vendors=None, vendors_disable=None, host_fallback=None,
         log_level=None):
    """opkit_init; None falls back to the environment, as in C. Optional: the first call
    of anything else initializes with the defaults."""
    o = InitOptions(ctypes.sizeof(InitOptions), _c_str(vendor_path), _c_str(vendors),
                    _c_str(vendors_disable),
                    -1 if host_fallback is None else int(bool(host_fallback)),
                    -1 if log_level is None else int(log_level))
    check(lib.opkit_init(ctypes.byref(o)))


def shutdown():
    lib.opkit_shutdown()


def vendors():
    """Every vendor candidate, in resolution order, with its state and the reason."""
    out = []
    for i in range(lib.opkit_vendor_count()):
        v = VendorInfo()
        v.struct_size = ctypes.sizeof(VendorInfo)
        check(lib.opkit_vendor_get_info(i, ctypes.byref(v)))
        state_name = _STATE_NAMES[v.state] if 0 <= v.state < len(_STATE_NAMES) else str(v.state)
        out.append(VendorState(v.name.decode(), v.path.decode(), v.version.decode(),
                               v.device_type, v.device_count, v.state, state_name,
                               v.detail.decode(), v.op_count))
    return out


def op_names():
    return [lib.opkit_op_name(i).decode() for i in range(lib.opkit_op_count())]


def op_schema(op_name):
    """The op's parameters in C order as [(kind, name), ...], from the loaded library's op
    spec: kinds are in, opt_in, index, out, opt_out, inout, f32, i32, i64 and stream."""
    return list(OP_SCHEMAS[op_name])


Dispatch = namedtuple("Dispatch", "op device_type status served_by declined first_declined_by")


def last_dispatch():
    """What dispatch did for this thread's last op call: a Dispatch (served_by is a vendor
    name, "default", "host-fallback" or "" when nobody served it; declined counts the
    candidates that declined first), or None when this thread made no op call since the
    library was initialized."""
    info = DispatchInfo()
    info.struct_size = ctypes.sizeof(DispatchInfo)
    status = lib.opkit_last_dispatch(ctypes.byref(info))
    if status == 6:  # OPKIT_ERROR_NOT_FOUND: no op call on this thread yet
        return None
    check(status)
    text = lambda b: b.decode() if b else ""  # noqa: E731
    return Dispatch(text(info.op), info.device_type, info.status, text(info.served_by),
                    info.declined, text(info.first_declined_by))


def op_resolve(op_name, device_type=DEVICE_CPU):
    """Who serves op_name on device_type: a vendor name, "default" or "host-fallback"."""
    who = ctypes.c_char_p()
    check(lib.opkit_op_resolve(op_name.encode(), as_device(device_type).device_type,
                               ctypes.byref(who)))
    return who.value.decode()


def device_count(device_type):
    return lib.opkit_device_count(as_device(device_type).device_type)


def malloc(device, nbytes):
    """Device memory from the device's vendor; returns the address as an int."""
    ptr = ctypes.c_void_p()
    check(lib.opkit_malloc(as_device(device), nbytes, ctypes.byref(ptr)))
    return ptr.value or 0


def free(device, ptr):
    check(lib.opkit_free(as_device(device), ptr))


def memcpy(dst, dst_device, src, src_device, nbytes, stream=None):
    check(lib.opkit_memcpy(dst, as_device(dst_device), src, as_device(src_device), nbytes,
                           stream))


def stream_create(device):
    s = ctypes.c_void_p()
    check(lib.opkit_stream_create(as_device(device), ctypes.byref(s)))
    return s.value or 0


def stream_destroy(device, stream):
    check(lib.opkit_stream_destroy(as_device(device), stream))


def synchronize(device, stream=None):
    """Waits for stream, or for the whole device when stream is None."""
    check(lib.opkit_synchronize(as_device(device), stream))


def set_log_level(level):
    lib.opkit_set_log_level(int(level))


_log_callback = None  # the ctypes trampoline must outlive its registration


def set_log_callback(fn):
    """fn(level: int, message: str), or None for the default sink (stderr). An exception
    raised by fn is swallowed: it must not unwind into C."""
    global _log_callback
    if fn is None:
        lib.opkit_set_log_callback(LOG_FN(), None)
        _log_callback = None
        return

    def trampoline(level, message, _user):
        try:
            fn(level, message.decode(errors="replace"))
        except Exception:  # noqa: BLE001 - see docstring
            pass

    callback = LOG_FN(trampoline)
    lib.opkit_set_log_callback(callback, None)
    _log_callback = callback

__all__ = ['as_device', 'version', 'init', 'shutdown', 'vendors', 'op_names', 'op_schema', 'op_resolve', 'last_dispatch', 'Dispatch', 'device_count', 'malloc', 'free', 'memcpy', 'stream_create', 'stream_destroy', 'synchronize', 'set_log_level', 'set_log_callback', 'VENDOR_READY', 'VENDOR_NO_DEVICE', 'VENDOR_INCOMPATIBLE', 'VENDOR_LOAD_FAILED', 'VENDOR_INIT_FAILED', 'VENDOR_DISABLED', 'VendorState', 'LOG_TRACE', 'LOG_DEBUG', 'LOG_INFO', 'LOG_WARN', 'LOG_ERROR', 'LOG_OFF']
