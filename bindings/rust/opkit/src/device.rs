//! Devices, device memory and streams, each owned and released on Drop.
use crate::error::{check, Error, Result};
use crate::tensor::{check_device_view, contiguous_strides, DType, Element, Tensor, TensorMut};
use opkit_sys as sys;
use std::os::raw::c_void;

/// DLPack's device types, as opkit numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceType {
    Cpu,
    Cuda,
    Rocm,
    Ascend,
    Other(i32),
}

impl DeviceType {
    pub fn code(self) -> i32 {
        match self {
            DeviceType::Cpu => sys::OPKIT_DEVICE_CPU,
            DeviceType::Cuda => sys::OPKIT_DEVICE_CUDA,
            DeviceType::Rocm => sys::OPKIT_DEVICE_ROCM,
            DeviceType::Ascend => sys::OPKIT_DEVICE_ASCEND,
            DeviceType::Other(c) => c,
        }
    }
    pub fn from_code(c: i32) -> DeviceType {
        match c {
            sys::OPKIT_DEVICE_CPU => DeviceType::Cpu,
            sys::OPKIT_DEVICE_CUDA => DeviceType::Cuda,
            sys::OPKIT_DEVICE_ROCM => DeviceType::Rocm,
            sys::OPKIT_DEVICE_ASCEND => DeviceType::Ascend,
            other => DeviceType::Other(other),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Device {
    pub kind: DeviceType,
    pub id: i32,
}

impl Device {
    pub fn cpu() -> Device {
        Device { kind: DeviceType::Cpu, id: 0 }
    }
    pub fn new(kind: DeviceType, id: i32) -> Device {
        Device { kind, id }
    }
    pub fn raw(self) -> sys::opkit_device {
        sys::opkit_device { device_type: self.kind.code(), device_id: self.id }
    }
    pub fn from_raw(d: sys::opkit_device) -> Device {
        Device { kind: DeviceType::from_code(d.device_type), id: d.device_id }
    }
    /// How many devices of this type the vendors found (opkit_device_count).
    pub fn count(kind: DeviceType) -> i32 {
        // SAFETY: takes a plain integer.
        unsafe { sys::opkit_device_count(kind.code()) }
    }
}

/// Memory from opkit_malloc on one device, freed on Drop. Queued device work that uses it
/// must be finished before it is dropped (synchronize its stream): Drop cannot know.
pub struct DeviceBuffer {
    device: Device,
    ptr: *mut c_void,
    bytes: usize,
}

// The buffer is plain memory: opkit's memory functions may be called from any thread.
unsafe impl Send for DeviceBuffer {}

impl DeviceBuffer {
    pub fn new(device: Device, bytes: usize) -> Result<DeviceBuffer> {
        let mut ptr = std::ptr::null_mut();
        // SAFETY: ptr is a valid out-pointer.
        check(unsafe { sys::opkit_malloc(device.raw(), bytes, &mut ptr) })?;
        Ok(DeviceBuffer { device, ptr, bytes })
    }
    pub fn device(&self) -> Device {
        self.device
    }
    pub fn len_bytes(&self) -> usize {
        self.bytes
    }

    /// Copies a host slice to the start of the buffer; the slice may be reused on return.
    pub fn copy_from_host<T: Element>(&mut self, src: &[T]) -> Result<()> {
        let n = std::mem::size_of_val(src);
        if n > self.bytes {
            return Err(Error::invalid(format!("{} bytes do not fit a buffer of {}", n, self.bytes)));
        }
        // SAFETY: both ranges are n bytes of live memory (checked above).
        check(unsafe {
            sys::opkit_memcpy(self.ptr, self.device.raw(), src.as_ptr() as *const c_void,
                              Device::cpu().raw(), n, std::ptr::null_mut())
        })
    }

    /// Copies the start of the buffer into a host slice; the data is there on return.
    pub fn copy_to_host<T: Element>(&self, dst: &mut [T]) -> Result<()> {
        let n = std::mem::size_of_val(dst);
        if n > self.bytes {
            return Err(Error::invalid(format!("{} bytes asked of a buffer of {}", n, self.bytes)));
        }
        // SAFETY: both ranges are n bytes of live memory (checked above).
        check(unsafe {
            sys::opkit_memcpy(dst.as_mut_ptr() as *mut c_void, Device::cpu().raw(), self.ptr,
                              self.device.raw(), n, std::ptr::null_mut())
        })
    }

    /// A contiguous view of the buffer's start.
    pub fn tensor(&self, dtype: DType, shape: &[i64]) -> Result<Tensor<'_>> {
        self.tensor_strided(dtype, shape, &contiguous_strides(shape), 0)
    }
    pub fn tensor_strided(&self, dtype: DType, shape: &[i64], strides: &[i64], offset: usize) -> Result<Tensor<'_>> {
        check_device_view(self.bytes, dtype, shape, strides, offset)?;
        Ok(Tensor::from_device(self.ptr, self.device, dtype, shape, strides, (offset * dtype.size()) as u64))
    }
    pub fn tensor_mut(&mut self, dtype: DType, shape: &[i64]) -> Result<TensorMut<'_>> {
        self.tensor_mut_strided(dtype, shape, &contiguous_strides(shape), 0)
    }
    pub fn tensor_mut_strided(&mut self, dtype: DType, shape: &[i64], strides: &[i64], offset: usize) -> Result<TensorMut<'_>> {
        check_device_view(self.bytes, dtype, shape, strides, offset)?;
        Ok(TensorMut::from_device(self.ptr, self.device, dtype, shape, strides, (offset * dtype.size()) as u64))
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: ptr came from opkit_malloc on this device and is freed once. A failure
        // here cannot be reported from Drop; opkit logs it.
        unsafe {
            sys::opkit_free(self.device.raw(), self.ptr);
        }
    }
}

/// A stream of one device (opkit_stream_create), destroyed on Drop.
pub struct Stream {
    device: Device,
    raw: sys::opkit_stream,
}

unsafe impl Send for Stream {}

impl Stream {
    pub fn new(device: Device) -> Result<Stream> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: raw is a valid out-pointer.
        check(unsafe { sys::opkit_stream_create(device.raw(), &mut raw) })?;
        Ok(Stream { device, raw })
    }
    pub fn device(&self) -> Device {
        self.device
    }
    pub fn raw(&self) -> sys::opkit_stream {
        self.raw
    }
    /// Waits for the work queued on this stream.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: the stream is live until Drop.
        check(unsafe { sys::opkit_synchronize(self.device.raw(), self.raw) })
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: created by opkit_stream_create on this device, destroyed once.
        unsafe {
            sys::opkit_stream_destroy(self.device.raw(), self.raw);
        }
    }
}

/// Waits for the device's default stream.
pub fn synchronize(device: Device) -> Result<()> {
    // SAFETY: the NULL stream is every device's default.
    check(unsafe { sys::opkit_synchronize(device.raw(), std::ptr::null_mut()) })
}
