//! opkit-sys against include/opkit.h and against the loaded libopkit: every function and
//! numeric constant of the header is declared here with the same value, the structs have
//! the C compiler's sizes and offsets, and the op declarations generated from spec/ops.h
//! match the library's own opkit_op_schema().
use opkit_sys::*;
use std::collections::BTreeMap;
use std::ffi::CStr;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

fn header() -> String {
    fs::read_to_string(repo().join("include/opkit.h")).expect("include/opkit.h")
}

fn lib_rs() -> String {
    fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap()
}

#[test]
fn every_header_function_is_declared() {
    let h = header();
    let decls = lib_rs();
    let ops: Vec<&str> = OP_SPEC.iter().map(|(n, _)| *n).collect();
    let mut missing = Vec::new();
    for line in h.lines() {
        let t = line.trim_start();
        if !t.starts_with("OPKIT_API ") {
            continue;
        }
        let open = match t.find('(') { Some(i) => i, None => continue };
        let name = t[..open].rsplit(|c: char| c == ' ' || c == '*').next().unwrap();
        if !name.starts_with("opkit_") {
            continue;
        }
        let declared = decls.contains(&format!("pub fn {}(", name))
            || ops.contains(&name.trim_start_matches("opkit_"));
        if !declared {
            missing.push(name.to_string());
        }
    }
    assert!(missing.is_empty(), "declared in opkit.h, missing in opkit-sys: {:?}", missing);
}

#[test]
fn every_numeric_constant_has_the_headers_value() {
    let h = header();
    let decls = lib_rs();
    let mut checked = 0;
    for line in h.lines() {
        let mut it = line.split_whitespace();
        if it.next() != Some("#define") {
            continue;
        }
        let (name, value) = match (it.next(), it.next()) { (Some(n), Some(v)) => (n, v), _ => continue };
        if !name.starts_with("OPKIT_") || value.parse::<i64>().is_err() {
            continue; // macros that are not plain numbers (OPKIT_API, guards, formulas)
        }
        let want = format!("pub const {}:", name);
        let at = decls.find(&want).unwrap_or_else(|| panic!("opkit-sys lacks {}", name));
        let rest = &decls[at..];
        let got = rest[rest.find('=').unwrap() + 1..rest.find(';').unwrap()].trim();
        assert_eq!(got, value, "{}", name);
        checked += 1;
    }
    assert!(checked >= 35, "only {} constants found: did opkit.h change shape?", checked);
    assert_eq!(OPKIT_VERSION_NUMBER, (1 << 16) | (2 << 8));
}

/// sizeof and offsetof of every struct, as the C compiler sees them.
fn c_layout() -> BTreeMap<String, usize> {
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let src = out_dir.join("layout.c");
    let exe = out_dir.join("layout");
    let fields: &[(&str, &[&str])] = &[
        ("opkit_device", &["device_type", "device_id"]),
        ("opkit_dtype", &["code", "bits", "lanes"]),
        ("opkit_tensor", &["data", "device", "ndim", "dtype", "shape", "strides", "byte_offset"]),
        ("opkit_init_options", &["struct_size", "vendor_path", "vendors", "vendors_disable", "host_fallback", "log_level"]),
        ("opkit_vendor_info", &["struct_size", "name", "path", "version", "device_type", "device_count", "state", "detail", "op_count"]),
        ("opkit_dispatch_info", &["struct_size", "op", "device_type", "status", "served_by", "declined", "first_declined_by"]),
    ];
    let mut c = String::from("#include <stddef.h>\n#include <stdio.h>\n#include <opkit.h>\nint main(void) {\n");
    for (s, fs) in fields {
        c.push_str(&format!("  printf(\"{0} %zu\\n\", sizeof({0}));\n", s));
        for f in *fs {
            c.push_str(&format!("  printf(\"{0}.{1} %zu\\n\", offsetof({0}, {1}));\n", s, f));
        }
    }
    c.push_str("  return 0;\n}\n");
    fs::write(&src, c).unwrap();
    let inc = repo().join("include");
    let st = Command::new("cc").arg("-I").arg(&inc).arg(&src).arg("-o").arg(&exe).status().expect("cc");
    assert!(st.success(), "the layout program did not compile");
    let out = Command::new(&exe).output().unwrap();
    String::from_utf8(out.stdout).unwrap().lines()
        .map(|l| { let (k, v) = l.split_once(' ').unwrap(); (k.to_string(), v.parse().unwrap()) })
        .collect()
}

macro_rules! offset {
    ($t:ty, $f:ident) => {{
        let u = std::mem::MaybeUninit::<$t>::uninit();
        let base = u.as_ptr();
        // SAFETY: only the address of the field is taken; nothing is read.
        let field = unsafe { std::ptr::addr_of!((*base).$f) };
        field as usize - base as usize
    }};
}

#[test]
fn structs_have_the_c_layout() {
    let c = c_layout();
    let mut rust = BTreeMap::new();
    macro_rules! record {
        ($t:ident, $($f:ident),*) => {{
            rust.insert(stringify!($t).to_string(), std::mem::size_of::<$t>());
            $( rust.insert(format!("{}.{}", stringify!($t), stringify!($f)), offset!($t, $f)); )*
        }};
    }
    record!(opkit_device, device_type, device_id);
    record!(opkit_dtype, code, bits, lanes);
    record!(opkit_tensor, data, device, ndim, dtype, shape, strides, byte_offset);
    record!(opkit_init_options, struct_size, vendor_path, vendors, vendors_disable, host_fallback, log_level);
    record!(opkit_vendor_info, struct_size, name, path, version, device_type, device_count, state, detail, op_count);
    record!(opkit_dispatch_info, struct_size, op, device_type, status, served_by, declined, first_declined_by);
    assert_eq!(rust, c);
}

#[test]
fn generated_ops_match_the_librarys_schema() {
    // The library describes each op as "name(kind param, ...)" (opkit_op_schema).
    let n = unsafe { opkit_op_count() };
    assert_eq!(n as usize, OP_SPEC.len(), "the library and spec/ops.h disagree on the op count");
    for (i, (name, params)) in OP_SPEC.iter().enumerate() {
        let lib = unsafe { CStr::from_ptr(opkit_op_schema(i as i32)) }.to_str().unwrap().to_string();
        let ps: Vec<String> = params.iter().map(|(k, p)| format!("{} {}", k, p)).collect();
        assert_eq!(lib, format!("{}({})", name, ps.join(", ")));
    }
}
