"""Finds libopkit and declares the C prototypes of the public API (include/opkit.h).

Search order (docs/python.md):
  1. $OPKIT_LIBRARY, a file path: an explicit choice, never second-guessed;
  2. the system's dynamic loader, "libopkit.so.1": an installed libopkit1 package, or any
     prefix on the loader's path (LD_LIBRARY_PATH, ld.so.conf);
  3. the build tree next to this source tree (../../build/lib), for running from a
     checkout with nothing installed.
"""
import ctypes
import os

from ctypes import (POINTER, Structure, c_char_p, c_float, c_int32, c_int64, c_size_t,
                    c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)


class Device(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class Tensor(Structure):
    """opkit_tensor, layout-identical to DLPack's DLTensor."""
    _fields_ = [("data", c_void_p), ("device", Device), ("ndim", c_int32), ("dtype", DType),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)),
                ("byte_offset", c_uint64)]


class InitOptions(Structure):
    _fields_ = [("struct_size", c_uint32), ("vendor_path", c_char_p), ("vendors", c_char_p),
                ("vendors_disable", c_char_p), ("host_fallback", c_int32),
                ("log_level", c_int32)]


class VendorInfo(Structure):
    _fields_ = [("struct_size", c_uint32), ("name", c_char_p), ("path", c_char_p),
                ("version", c_char_p), ("device_type", c_int32), ("device_count", c_int32),
                ("state", c_int32), ("detail", c_char_p), ("op_count", c_int32)]


class DispatchInfo(Structure):
    """opkit_dispatch_info (opkit_last_dispatch, added in 1.1)."""
    _fields_ = [("struct_size", c_uint32), ("op", c_char_p), ("device_type", c_int32),
                ("status", c_int32), ("served_by", c_char_p), ("declined", c_int32),
                ("first_declined_by", c_char_p)]


LOG_FN = ctypes.CFUNCTYPE(None, c_int32, c_char_p, c_void_p)

# Ops take their tensors as addresses (ints from the binding; a POINTER(Tensor) is accepted
# too): no ctypes pointer object is built per tensor and call.
_T = c_void_p
_S = c_void_p  # opkit_stream
_ST = c_int32  # opkit_status

# name: (restype, argtypes)
_PROTOTYPES = {
    "opkit_version": (c_uint32, []),
    "opkit_status_string": (c_char_p, [_ST]),
    "opkit_last_error_message": (c_char_p, []),
    "opkit_set_log_level": (None, [c_int32]),
    "opkit_set_log_callback": (None, [LOG_FN, c_void_p]),
    "opkit_init": (_ST, [POINTER(InitOptions)]),
    "opkit_shutdown": (None, []),
    "opkit_vendor_count": (c_int32, []),
    "opkit_vendor_get_info": (_ST, [c_int32, POINTER(VendorInfo)]),
    "opkit_op_count": (c_int32, []),
    "opkit_op_name": (c_char_p, [c_int32]),
    "opkit_op_resolve": (_ST, [c_char_p, c_int32, POINTER(c_char_p)]),
    "opkit_device_count": (c_int32, [c_int32]),
    "opkit_malloc": (_ST, [Device, c_size_t, POINTER(c_void_p)]),
    "opkit_free": (_ST, [Device, c_void_p]),
    "opkit_memcpy": (_ST, [c_void_p, Device, c_void_p, Device, c_size_t, _S]),
    "opkit_stream_create": (_ST, [Device, POINTER(c_void_p)]),
    "opkit_stream_destroy": (_ST, [Device, c_void_p]),
    "opkit_synchronize": (_ST, [Device, _S]),
    "opkit_op_schema": (c_char_p, [c_int32]),
    "opkit_last_dispatch": (_ST, [POINTER(DispatchInfo)]),
}


SYSTEM_NAME = "libopkit.so.1"  # the ABI this binding was written for


def _candidates():
    """(path or soname, how it was found) in the order docs/python.md gives."""
    env = os.environ.get("OPKIT_LIBRARY")
    if env:
        return [(env, "$OPKIT_LIBRARY")]
    here = os.path.dirname(os.path.abspath(__file__))
    in_tree = os.path.normpath(os.path.join(here, "..", "..", "build", "lib", SYSTEM_NAME))
    return [(SYSTEM_NAME, "the system loader"), (in_tree, "the build tree next to the source")]


def _loaded_path(name):
    """The file the loader mapped for `name` (a soname resolves to a path only here)."""
    if os.path.isabs(name):
        return os.path.realpath(name)
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                if os.path.basename(path).startswith(name):
                    return path
    except OSError:
        pass
    return name


def _load():
    global LIBRARY_PATH, FOUND_BY
    errors = []
    for path, how in _candidates():
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            errors.append(f"{how} ({path}): {e}")
    else:
        raise ImportError("opkit: cannot load libopkit.so.1. Looked at " + "; ".join(errors)
                          + ". Install the libopkit1 package, put a libopkit.so.1 on the "
                          "loader's path, or set OPKIT_LIBRARY to its file.")
    LIBRARY_PATH, FOUND_BY = _loaded_path(path), how
    lib.opkit_version.restype, lib.opkit_version.argtypes = c_uint32, []
    found, wanted = lib.opkit_version(), _binding_version()
    if found >> 16 != wanted[0] or (found >> 8) & 0xFF < wanted[1]:
        raise ImportError(f"opkit: {LIBRARY_PATH} (found through {how}) is libopkit "
                          f"{found >> 16}.{(found >> 8) & 0xFF}.{found & 0xFF}; this binding needs "
                          f"{wanted[0]}.x with x >= {wanted[1]}")
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    for name, params in _op_schemas(lib).items():
        fn = getattr(lib, "opkit_" + name)
        fn.restype, fn.argtypes = _ST, [_KIND_TYPES[kind] for kind, _ in params]
    return lib


def _binding_version():
    from ._version import __version__
    return tuple(int(p) for p in __version__.split(".")[:2])


LIBRARY_PATH = None  # the file loaded, and how it was found (set by _load)
FOUND_BY = None


# The C type of each parameter kind of the op spec (spec/ops.h, opkit_op_schema).
_KIND_TYPES = {"in": _T, "opt_in": _T, "index": _T, "out": _T, "opt_out": _T, "inout": _T,
               "f32": c_float, "i32": c_int32, "i64": c_int64, "stream": _S}


def _op_schemas(lib):
    """{op name: [(kind, parameter name), ...]} from the loaded library's op spec, so the
    ops' ctypes declarations always match the libopkit actually loaded."""
    schemas = {}
    for i in range(lib.opkit_op_count()):
        text = lib.opkit_op_schema(i).decode()
        name, _, rest = text.partition("(")
        params = [tuple(p.split()) for p in rest.rstrip(")").split(", ") if p]
        for kind, _ in params:
            if kind not in _KIND_TYPES:
                raise ImportError(f"opkit: op {name} has a parameter kind '{kind}' this binding "
                                  "does not know; upgrade the opkit Python package")
        schemas[name] = params
    return schemas


lib = _load()
OP_SCHEMAS = _op_schemas(lib)
