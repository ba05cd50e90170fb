//! opkit: LLM training and inference operators on whatever accelerator a machine has,
//! through libopkit's stable C ABI (include/opkit.h), in safe Rust.
//!
//! ```no_run
//! let x = [1.0f32, 2.0, 3.0, 4.0];
//! let mut y = [0.0f32; 4];
//! opkit::softmax_forward(&opkit::Tensor::new(&x, &[1, 4])?,
//!                        &mut opkit::TensorMut::new(&mut y, &[1, 4])?, None)?;
//! # Ok::<(), opkit::Error>(())
//! ```
//!
//! Every op of the op spec (spec/ops.h) is a function here, generated from that spec.
//! Every failure is an [`Error`] with opkit's status and message. docs/rust.md says what
//! the types guarantee and what remains the caller's job.
pub use opkit_sys as sys;

mod device;
mod error;
mod runtime;
mod tensor;

pub use device::{synchronize, Device, DeviceBuffer, DeviceType, Stream};
pub use error::{Error, Result, Status};
pub use runtime::{init, last_dispatch, op_names, op_resolve, set_log_level, shutdown, vendors, version,
                  Dispatch, InitOptions, VendorInfo};
pub use tensor::{contiguous_strides, DType, Element, Tensor, TensorMut};

pub use sys::{OPKIT_GELU_NONE as GELU_NONE, OPKIT_GELU_TANH as GELU_TANH, OPKIT_REDUCTION_MEAN as REDUCTION_MEAN,
              OPKIT_REDUCTION_NONE as REDUCTION_NONE, OPKIT_REDUCTION_SUM as REDUCTION_SUM};

use error::check;

fn opt_in(t: Option<&Tensor<'_>>) -> *const sys::opkit_tensor {
    t.map_or(std::ptr::null(), |t| t.raw())
}

fn opt_out(t: Option<&mut TensorMut<'_>>) -> *mut sys::opkit_tensor {
    t.map_or(std::ptr::null_mut(), |t| t.raw_mut())
}

fn stream_raw(s: Option<&Stream>) -> sys::opkit_stream {
    s.map_or(std::ptr::null_mut(), |s| s.raw())
}

// rms_norm_forward, ..., axpy: generated from spec/ops.h by build.rs.
include!(concat!(env!("OUT_DIR"), "/ops.rs"));
