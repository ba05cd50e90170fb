"""opkit statuses as Python exceptions.

Every failing call raises a subclass of opkit.Error carrying .status (the pinned integer),
.status_name ("OPKIT_ERROR_INVALID_ARGUMENT", ...) and .message (opkit's sentence).
The subclasses also derive from the matching built-in exception, so generic handlers
(except ValueError, except MemoryError) work too.
"""
from ._library import lib

OK = 0
ERROR_INVALID_ARGUMENT = 1
ERROR_UNSUPPORTED = 2
ERROR_OUT_OF_MEMORY = 3
ERROR_DEVICE = 4
ERROR_VENDOR = 5
ERROR_NOT_FOUND = 6
ERROR_INTERNAL = 7


class Error(RuntimeError):
    def __init__(self, status, message):
        self.status = status
        self.status_name = status_string(status)
        self.message = message
        super().__init__(f"{self.status_name}: {message}")


class InvalidArgumentError(Error, ValueError):
    pass


class UnsupportedError(Error, NotImplementedError):
    pass


class OutOfMemoryError(Error, MemoryError):
    pass


class DeviceError(Error):
    pass


class VendorError(Error):
    pass


class NotFoundError(Error, LookupError):
    pass


class InternalError(Error):
    pass


_BY_STATUS = {
    ERROR_INVALID_ARGUMENT: InvalidArgumentError,
    ERROR_UNSUPPORTED: UnsupportedError,
    ERROR_OUT_OF_MEMORY: OutOfMemoryError,
    ERROR_DEVICE: DeviceError,
    ERROR_VENDOR: VendorError,
    ERROR_NOT_FOUND: NotFoundError,
    ERROR_INTERNAL: InternalError,
}


def status_string(status):
    return lib.opkit_status_string(status).decode()


def check(status):
    """Raises the exception for a failed status; the message is read on this thread
    right after the call, before anything else can overwrite it."""
    if status != OK:
        message = lib.opkit_last_error_message().decode(errors="replace")
        raise _BY_STATUS.get(status, Error)(status, message)
