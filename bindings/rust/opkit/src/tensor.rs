//! Tensor views: an `opkit_tensor` over memory the view borrows (a host slice, or a
//! `DeviceBuffer`), with its shape and strides checked against that memory when the view
//! is made, so no view can reach past what it borrows. `Tensor` reads, `TensorMut` is
//! written; Rust's borrow rules then forbid a mutable view and any other view of the same
//! slice or buffer at once.
use crate::device::Device;
use crate::error::{Error, Result};
use opkit_sys as sys;
use std::marker::PhantomData;
use std::os::raw::c_void;

/// The dtypes opkit's ops take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DType {
    F32,
    F16,
    BF16,
    I32,
    I64,
}

impl DType {
    pub fn raw(self) -> sys::opkit_dtype {
        let (code, bits) = match self {
            DType::F32 => (sys::OPKIT_DTYPE_FLOAT, 32),
            DType::F16 => (sys::OPKIT_DTYPE_FLOAT, 16),
            DType::BF16 => (sys::OPKIT_DTYPE_BFLOAT, 16),
            DType::I32 => (sys::OPKIT_DTYPE_INT, 32),
            DType::I64 => (sys::OPKIT_DTYPE_INT, 64),
        };
        sys::opkit_dtype { code, bits, lanes: 1 }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        self.raw().bits as usize / 8
    }
}

/// Element types a host slice may hold. f32, i32 and i64 name their dtype; u16 is the
/// storage of f16 and bf16, whose dtype must be named (`Tensor::typed`).
pub trait Element: Copy + 'static {
    const DTYPE: Option<DType>;
}
impl Element for f32 {
    const DTYPE: Option<DType> = Some(DType::F32);
}
impl Element for i32 {
    const DTYPE: Option<DType> = Some(DType::I32);
}
impl Element for i64 {
    const DTYPE: Option<DType> = Some(DType::I64);
}
impl Element for u16 {
    const DTYPE: Option<DType> = None;
}

/// Row-major strides (in elements) of a shape.
pub fn contiguous_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![0i64; shape.len()];
    let mut step = 1i64;
    for d in (0..shape.len()).rev() {
        strides[d] = step;
        step = step.saturating_mul(shape[d].max(1));
    }
    strides
}

/// Checks that `shape`/`strides` (elements) starting at element `offset` stay inside
/// `len` elements: every index a tensor can address is below len.
fn check_fits(len: usize, shape: &[i64], strides: &[i64], offset: usize) -> Result<()> {
    if shape.len() != strides.len() {
        return Err(Error::invalid(format!("{} dims but {} strides", shape.len(), strides.len())));
    }
    if shape.len() > 16 {
        return Err(Error::invalid(format!("{} dims: a view has at most 16", shape.len())));
    }
    if let Some(d) = shape.iter().position(|&s| s < 0) {
        return Err(Error::invalid(format!("shape[{}] = {} is negative", d, shape[d])));
    }
    if let Some(d) = strides.iter().position(|&s| s < 0) {
        return Err(Error::invalid(format!("strides[{}] = {} is negative", d, strides[d])));
    }
    if offset > len {
        return Err(Error::invalid(format!("offset {} is past the {} elements borrowed", offset, len)));
    }
    if shape.iter().any(|&s| s == 0) {
        return Ok(()); // no element is addressed
    }
    let mut last = offset as i64;
    for (&n, &s) in shape.iter().zip(strides) {
        last = (n - 1).checked_mul(s).and_then(|x| last.checked_add(x))
            .ok_or_else(|| Error::invalid("the view's extent overflows 64 bits"))?;
    }
    if last as u128 >= len as u128 {
        return Err(Error::invalid(format!(
            "shape {:?} with strides {:?} from offset {} reaches element {}, but only {} are borrowed",
            shape, strides, offset, last, len)));
    }
    Ok(())
}

fn dtype_of<T: Element>(dtype: Option<DType>) -> Result<DType> {
    let dt = dtype.or(T::DTYPE).ok_or_else(|| Error::invalid("u16 data needs its dtype: DType::F16 or DType::BF16"))?;
    if dt.size() != std::mem::size_of::<T>() {
        return Err(Error::invalid(format!("{:?} elements are {} bytes, the slice's {}", dt, dt.size(), std::mem::size_of::<T>())));
    }
    Ok(dt)
}

/// The C struct and the shape/strides arrays it points into (heap buffers: they do not
/// move when the view does).
struct Raw {
    t: sys::opkit_tensor,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

impl Raw {
    fn new(data: *mut c_void, device: Device, dtype: DType, shape: &[i64], strides: &[i64], byte_offset: u64) -> Raw {
        let mut r = Raw {
            t: sys::opkit_tensor {
                data,
                device: device.raw(),
                ndim: shape.len() as i32,
                dtype: dtype.raw(),
                shape: std::ptr::null_mut(),
                strides: std::ptr::null_mut(),
                byte_offset,
            },
            shape: shape.to_vec(),
            strides: strides.to_vec(),
        };
        r.t.shape = r.shape.as_mut_ptr();
        r.t.strides = r.strides.as_mut_ptr();
        r
    }
}

/// A view opkit reads.
pub struct Tensor<'a> {
    raw: Raw,
    _borrow: PhantomData<&'a [u8]>,
}

/// A view opkit writes (and, for in-out parameters, reads first).
pub struct TensorMut<'a> {
    raw: Raw,
    _borrow: PhantomData<&'a mut [u8]>,
}

macro_rules! view_common {
    ($ty:ident) => {
        impl<'a> $ty<'a> {
            pub fn shape(&self) -> &[i64] {
                &self.raw.shape
            }
            pub fn strides(&self) -> &[i64] {
                &self.raw.strides
            }
            pub fn device(&self) -> Device {
                Device::from_raw(self.raw.t.device)
            }
            pub fn raw(&self) -> *const sys::opkit_tensor {
                &self.raw.t
            }
        }
    };
}
view_common!(Tensor);
view_common!(TensorMut);

impl<'a> Tensor<'a> {
    /// A contiguous view of a host slice (f32, i32 or i64; u16 needs `typed`).
    pub fn new<T: Element>(data: &'a [T], shape: &[i64]) -> Result<Tensor<'a>> {
        Self::strided(data, None, shape, &contiguous_strides(shape), 0)
    }

    /// A contiguous view with its dtype named: u16 slices as f16 or bf16.
    pub fn typed<T: Element>(data: &'a [T], dtype: DType, shape: &[i64]) -> Result<Tensor<'a>> {
        Self::strided(data, Some(dtype), shape, &contiguous_strides(shape), 0)
    }

    /// Any layout: strides and offset in elements (opkit itself asks for an innermost
    /// stride of 1, and says so with InvalidArgument when a call breaks that).
    pub fn strided<T: Element>(data: &'a [T], dtype: Option<DType>, shape: &[i64], strides: &[i64],
                               offset: usize) -> Result<Tensor<'a>> {
        let dt = dtype_of::<T>(dtype)?;
        check_fits(data.len(), shape, strides, offset)?;
        let bytes = (offset * dt.size()) as u64;
        let raw = Raw::new(data.as_ptr() as *mut c_void, Device::cpu(), dt, shape, strides, bytes);
        Ok(Tensor { raw, _borrow: PhantomData })
    }

    /// A view of device memory the caller vouches for (crate::device builds these).
    pub(crate) fn from_device(ptr: *mut c_void, device: Device, dt: DType, shape: &[i64],
                              strides: &[i64], byte_offset: u64) -> Tensor<'a> {
        Tensor { raw: Raw::new(ptr, device, dt, shape, strides, byte_offset), _borrow: PhantomData }
    }
}

impl<'a> TensorMut<'a> {
    pub fn new<T: Element>(data: &'a mut [T], shape: &[i64]) -> Result<TensorMut<'a>> {
        Self::strided(data, None, shape, &contiguous_strides(shape), 0)
    }

    pub fn typed<T: Element>(data: &'a mut [T], dtype: DType, shape: &[i64]) -> Result<TensorMut<'a>> {
        Self::strided(data, Some(dtype), shape, &contiguous_strides(shape), 0)
    }

    pub fn strided<T: Element>(data: &'a mut [T], dtype: Option<DType>, shape: &[i64], strides: &[i64],
                               offset: usize) -> Result<TensorMut<'a>> {
        let dt = dtype_of::<T>(dtype)?;
        check_fits(data.len(), shape, strides, offset)?;
        let bytes = (offset * dt.size()) as u64;
        let raw = Raw::new(data.as_mut_ptr() as *mut c_void, Device::cpu(), dt, shape, strides, bytes);
        Ok(TensorMut { raw, _borrow: PhantomData })
    }

    pub(crate) fn from_device(ptr: *mut c_void, device: Device, dt: DType, shape: &[i64],
                              strides: &[i64], byte_offset: u64) -> TensorMut<'a> {
        TensorMut { raw: Raw::new(ptr, device, dt, shape, strides, byte_offset), _borrow: PhantomData }
    }

    pub fn raw_mut(&mut self) -> *mut sys::opkit_tensor {
        &mut self.raw.t
    }
}

pub(crate) fn check_device_view(bytes: usize, dt: DType, shape: &[i64], strides: &[i64], offset: usize) -> Result<()> {
    check_fits(bytes / dt.size(), shape, strides, offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_strides_are_row_major() {
        assert_eq!(contiguous_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(contiguous_strides(&[]), Vec::<i64>::new());
        assert_eq!(contiguous_strides(&[5, 0, 2]), vec![2, 2, 1]);
    }

    #[test]
    fn a_view_must_fit_its_slice() {
        let data = [0f32; 12];
        assert!(Tensor::new(&data, &[3, 4]).is_ok());
        assert!(Tensor::new(&data, &[]).is_ok()); // a scalar: one element
        let e = Tensor::new(&data, &[4, 4]).err().unwrap();
        assert_eq!(e.status, crate::Status::InvalidArgument);
        assert!(e.message.contains("reaches element 15, but only 12 are borrowed"), "{}", e.message);
        // strided: rows of 4 with a stride of 5 from offset 1 need element 1 + 2*5 + 3 = 14
        assert!(Tensor::strided(&data, None, &[3, 4], &[5, 1], 1).is_err());
        assert!(Tensor::strided(&data, None, &[2, 4], &[5, 1], 1).is_ok()); // last = 1+5+3 = 9
        assert!(Tensor::strided(&data, None, &[2, 2], &[-1, 1], 0).is_err());
        assert!(Tensor::strided(&data, None, &[-2, 2], &[2, 1], 0).is_err());
        assert!(Tensor::strided(&data, None, &[2, 2], &[2], 0).is_err());
        assert!(Tensor::strided(&data, None, &[0, 7], &[7, 1], 12).is_ok()); // empty: nothing addressed
        assert!(Tensor::strided(&data, None, &[0, 7], &[7, 1], 13).is_err());
        assert!(Tensor::strided(&data, None, &[i64::MAX, 2], &[i64::MAX, 1], 0).is_err()); // overflow
    }

    #[test]
    fn half_storage_needs_its_dtype() {
        let h = [0u16; 4];
        let e = Tensor::new(&h, &[4]).err().unwrap();
        assert!(e.message.contains("needs its dtype"));
        assert!(Tensor::typed(&h, DType::BF16, &[4]).is_ok());
        assert!(Tensor::typed(&h, DType::F32, &[2]).is_err()); // 4-byte dtype over u16
        let f = [0f32; 2];
        assert!(Tensor::typed(&f, DType::BF16, &[2]).is_err());
    }

    #[test]
    fn the_c_struct_points_at_the_views_data() {
        let data = [1f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        let t = Tensor::strided(&data, None, &[2, 2], &[3, 1], 1).unwrap();
        let raw = unsafe { &*t.raw() };
        assert_eq!(raw.data as *const f32, data.as_ptr());
        assert_eq!(raw.byte_offset, 4);
        assert_eq!(raw.ndim, 2);
        assert_eq!(unsafe { std::slice::from_raw_parts(raw.shape, 2) }, &[2, 2]);
        assert_eq!(unsafe { std::slice::from_raw_parts(raw.strides, 2) }, &[3, 1]);
        assert_eq!(raw.device.device_type, sys::OPKIT_DEVICE_CPU);
        assert_eq!(raw.dtype, DType::F32.raw());
        let moved = t; // moving the view keeps its shape pointer valid (heap arrays)
        assert_eq!(unsafe { *(*moved.raw()).shape }, 2);
    }
}
