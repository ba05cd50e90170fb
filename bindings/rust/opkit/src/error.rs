//! opkit's statuses as a Rust error: the status and the sentence libopkit wrote about it
//! on this thread (opkit_last_error_message), captured when the call returned.
use opkit_sys as sys;
use std::ffi::CStr;
use std::fmt;

/// Every non-OK status of include/opkit.h.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    InvalidArgument,
    Unsupported,
    OutOfMemory,
    Device,
    Vendor,
    NotFound,
    Internal,
    /// A status this binding does not know (a newer libopkit).
    Other(i32),
}

impl Status {
    pub fn from_code(code: i32) -> Option<Status> {
        Some(match code {
            sys::OPKIT_OK => return None,
            sys::OPKIT_ERROR_INVALID_ARGUMENT => Status::InvalidArgument,
            sys::OPKIT_ERROR_UNSUPPORTED => Status::Unsupported,
            sys::OPKIT_ERROR_OUT_OF_MEMORY => Status::OutOfMemory,
            sys::OPKIT_ERROR_DEVICE => Status::Device,
            sys::OPKIT_ERROR_VENDOR => Status::Vendor,
            sys::OPKIT_ERROR_NOT_FOUND => Status::NotFound,
            sys::OPKIT_ERROR_INTERNAL => Status::Internal,
            other => Status::Other(other),
        })
    }

    pub fn code(self) -> i32 {
        match self {
            Status::InvalidArgument => sys::OPKIT_ERROR_INVALID_ARGUMENT,
            Status::Unsupported => sys::OPKIT_ERROR_UNSUPPORTED,
            Status::OutOfMemory => sys::OPKIT_ERROR_OUT_OF_MEMORY,
            Status::Device => sys::OPKIT_ERROR_DEVICE,
            Status::Vendor => sys::OPKIT_ERROR_VENDOR,
            Status::NotFound => sys::OPKIT_ERROR_NOT_FOUND,
            Status::Internal => sys::OPKIT_ERROR_INTERNAL,
            Status::Other(c) => c,
        }
    }

    /// libopkit's name for it ("OPKIT_ERROR_UNSUPPORTED", ...).
    pub fn name(self) -> String {
        // SAFETY: opkit_status_string returns a static, never-NULL string for any value.
        unsafe { CStr::from_ptr(sys::opkit_status_string(self.code())) }.to_string_lossy().into_owned()
    }
}

/// A failed opkit call: the status and opkit's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub status: Status,
    pub message: String,
}

impl Error {
    /// An error raised by this binding before calling libopkit (a view that does not fit
    /// its memory, a string with a NUL...): always InvalidArgument.
    pub(crate) fn invalid(message: impl Into<String>) -> Error {
        Error { status: Status::InvalidArgument, message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status.name(), self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// Ok for OPKIT_OK, else the status with this thread's last error message.
pub(crate) fn check(code: i32) -> Result<()> {
    match Status::from_code(code) {
        None => Ok(()),
        Some(status) => {
            // SAFETY: never NULL; valid until the next opkit call on this thread, and
            // copied before any other call.
            let message = unsafe { CStr::from_ptr(sys::opkit_last_error_message()) }
                .to_string_lossy()
                .into_owned();
            Err(Error { status, message })
        }
    }
}
