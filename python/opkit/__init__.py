"""opkit — LLM training and inference operators on whatever accelerator a machine has.

A pure-Python (ctypes) binding of libopkit's public C API (include/opkit.h), with no
compiled part and no dependency. Tensors go in through DLPack, so PyTorch, NumPy, CuPy and
JAX arrays work on the CPU and the GPU; ops run on the caller's current stream. Every
failure raises an opkit.Error subclass carrying the opkit status and message.

    import numpy as np, opkit
    x = np.random.randn(4, 8).astype(np.float32); y = np.empty_like(x)
    opkit.softmax_forward(x, y)
"""
from ._errors import (Error, DeviceError, InternalError, InvalidArgumentError,  # noqa: F401
                      NotFoundError, OutOfMemoryError, UnsupportedError, VendorError,
                      status_string)
from ._errors import (OK, ERROR_INVALID_ARGUMENT, ERROR_UNSUPPORTED,  # noqa: F401
                      ERROR_OUT_OF_MEMORY, ERROR_DEVICE, ERROR_VENDOR, ERROR_NOT_FOUND,
                      ERROR_INTERNAL)
from ._tensors import (DEVICE_CPU, DEVICE_CUDA, DEVICE_ROCM, DEVICE_ASCEND,  # noqa: F401
                       DTYPE_INT, DTYPE_UINT, DTYPE_FLOAT, DTYPE_BFLOAT)
from ._runtime import *  # noqa: F401,F403
from ._version import __version__  # noqa: F401  (the libopkit version this binding targets)
from ._library import LIBRARY_PATH as library_path, FOUND_BY as library_found_by  # noqa: F401

from ._ops import *  # noqa: F401,F403
