//! The library's state: initialization, version, vendors, ops and the last dispatch.
use crate::device::DeviceType;
use crate::error::{check, Error, Result};
use opkit_sys as sys;
use std::ffi::{CStr, CString};
use std::os::raw::c_char;

/// `opkit_init`'s options; None falls back to the environment (OPKIT_VENDOR_PATH, ...).
#[derive(Debug, Clone, Default)]
pub struct InitOptions {
    pub vendor_path: Option<String>,
    pub vendors: Option<String>,
    pub vendors_disable: Option<String>,
    pub host_fallback: Option<bool>,
    pub log_level: Option<i32>,
}

fn c_string(s: &Option<String>) -> Result<Option<CString>> {
    match s {
        None => Ok(None),
        Some(v) => CString::new(v.as_str()).map(Some).map_err(|_| Error::invalid(format!("{:?} contains a NUL byte", v))),
    }
}

fn ptr(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(std::ptr::null(), |c| c.as_ptr())
}

/// Initializes explicitly (optional: any other call initializes with the defaults).
/// InvalidArgument when already initialized.
pub fn init(options: &InitOptions) -> Result<()> {
    let (vp, v, vd) = (c_string(&options.vendor_path)?, c_string(&options.vendors)?, c_string(&options.vendors_disable)?);
    let o = sys::opkit_init_options {
        struct_size: std::mem::size_of::<sys::opkit_init_options>() as u32,
        vendor_path: ptr(&vp),
        vendors: ptr(&v),
        vendors_disable: ptr(&vd),
        host_fallback: options.host_fallback.map_or(-1, |b| b as i32),
        log_level: options.log_level.unwrap_or(-1),
    };
    // SAFETY: the strings live until the call returns; opkit copies what it keeps.
    check(unsafe { sys::opkit_init(&o) })
}

/// Unloads the vendors; a later call initializes again.
///
/// # Safety
/// No opkit call may be in flight on any thread, no view or buffer may be used across it
/// (device memory from a vendor is gone with the vendor), and strings returned before it
/// (vendor names) must not be used after it — this crate copies them, so only the first two
/// are the caller's job.
pub unsafe fn shutdown() {
    sys::opkit_shutdown()
}

/// The loaded library's version, (major, minor, patch).
pub fn version() -> (u32, u32, u32) {
    // SAFETY: no arguments, never initializes.
    let v = unsafe { sys::opkit_version() };
    (v >> 16, (v >> 8) & 0xff, v & 0xff)
}

fn owned(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: opkit's strings are NUL-terminated and valid until shutdown; copied now.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// A vendor's state, as opkit-info shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VendorInfo {
    pub name: String,
    pub path: String,
    pub version: String,
    pub device_type: DeviceType,
    pub device_count: i32,
    /// OPKIT_VENDOR_READY, OPKIT_VENDOR_NO_DEVICE, ...
    pub state: i32,
    pub detail: String,
    pub op_count: i32,
}

pub fn vendors() -> Result<Vec<VendorInfo>> {
    // SAFETY: plain calls; info is a valid out-struct with its size set.
    let n = unsafe { sys::opkit_vendor_count() };
    let mut out = Vec::new();
    for i in 0..n {
        let mut v: sys::opkit_vendor_info = unsafe { std::mem::zeroed() };
        v.struct_size = std::mem::size_of::<sys::opkit_vendor_info>() as u32;
        check(unsafe { sys::opkit_vendor_get_info(i, &mut v) })?;
        out.push(VendorInfo {
            name: owned(v.name),
            path: owned(v.path),
            version: owned(v.version),
            device_type: DeviceType::from_code(v.device_type),
            device_count: v.device_count,
            state: v.state,
            detail: owned(v.detail),
            op_count: v.op_count,
        });
    }
    Ok(out)
}

/// Every op's name, in opkit_op_name order.
pub fn op_names() -> Vec<String> {
    // SAFETY: indices below opkit_op_count() give valid names.
    (0..unsafe { sys::opkit_op_count() }).map(|i| owned(unsafe { sys::opkit_op_name(i) })).collect()
}

/// Who serves `op` on `device`: a vendor's name or "default".
pub fn op_resolve(op: &str, device: DeviceType) -> Result<String> {
    let name = CString::new(op).map_err(|_| Error::invalid("an op name with a NUL byte"))?;
    let mut who: *const c_char = std::ptr::null();
    // SAFETY: name is NUL-terminated, who a valid out-pointer.
    check(unsafe { sys::opkit_op_resolve(name.as_ptr(), device.code(), &mut who) })?;
    Ok(owned(who))
}

/// What happened in this thread's last op call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    pub op: String,
    pub device_type: DeviceType,
    pub status: i32,
    /// A vendor's name, "default", "host-fallback", or "" when nobody served it.
    pub served_by: String,
    pub declined: i32,
    pub first_declined_by: String,
}

pub fn last_dispatch() -> Result<Dispatch> {
    let mut d: sys::opkit_dispatch_info = unsafe { std::mem::zeroed() };
    d.struct_size = std::mem::size_of::<sys::opkit_dispatch_info>() as u32;
    // SAFETY: a valid out-struct with its size set.
    check(unsafe { sys::opkit_last_dispatch(&mut d) })?;
    Ok(Dispatch {
        op: owned(d.op),
        device_type: DeviceType::from_code(d.device_type),
        status: d.status,
        served_by: owned(d.served_by),
        declined: d.declined,
        first_declined_by: owned(d.first_declined_by),
    })
}

/// Messages below `level` (OPKIT_LOG_*) are dropped.
pub fn set_log_level(level: i32) {
    // SAFETY: takes an integer; never initializes.
    unsafe { sys::opkit_set_log_level(level) }
}
