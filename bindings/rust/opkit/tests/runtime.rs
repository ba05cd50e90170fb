//! The wrapper's runtime functions and owned resources, on the CPU.
use opkit::{DType, Device, DeviceBuffer, DeviceType, Status, Stream};

#[test]
fn version_and_ops_match_the_spec_the_crate_was_built_from() {
    let (major, minor, _) = opkit::version();
    assert_eq!(major, opkit::sys::OPKIT_VERSION_MAJOR);
    assert!(minor >= opkit::sys::OPKIT_VERSION_MINOR);
    let names = opkit::op_names();
    let spec: Vec<String> = opkit::sys::OP_SPEC.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(names, spec);
    for op in &names {
        assert!(!opkit::op_resolve(op, DeviceType::Cpu).unwrap().is_empty());
    }
}

#[test]
fn vendors_and_device_counts() {
    let vendors = opkit::vendors().unwrap();
    for v in &vendors {
        assert!(!v.name.is_empty() && !v.path.is_empty());
        assert!((0..=5).contains(&v.state), "{:?}", v);
    }
    assert_eq!(Device::count(DeviceType::Cpu), 1);
}

#[test]
fn a_cpu_buffer_round_trips_and_views_run_ops() {
    let mut a = DeviceBuffer::new(Device::cpu(), 4 * 8).unwrap();
    let mut b = DeviceBuffer::new(Device::cpu(), 4 * 8).unwrap();
    a.copy_from_host(&[1f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]).unwrap();
    b.copy_from_host(&[10f32; 8]).unwrap();
    {
        let x = a.tensor(DType::F32, &[2, 4]).unwrap();
        let mut y = b.tensor_mut(DType::F32, &[2, 4]).unwrap();
        opkit::axpy(2.0, &x, &mut y, None).unwrap();
    }
    let mut out = [0f32; 8];
    b.copy_to_host(&mut out).unwrap();
    assert_eq!(out, [12.0, 14.0, 16.0, 18.0, 20.0, 22.0, 24.0, 26.0]);
    // A view past the buffer, or a copy larger than it, is refused before opkit is called.
    assert_eq!(a.tensor(DType::F32, &[3, 4]).err().unwrap().status, Status::InvalidArgument);
    assert_eq!(a.copy_from_host(&[0f32; 9]).unwrap_err().status, Status::InvalidArgument);
    let mut big = [0f32; 9];
    assert_eq!(a.copy_to_host(&mut big).unwrap_err().status, Status::InvalidArgument);
    assert_eq!(a.len_bytes(), 32);
    assert_eq!(a.device(), Device::cpu());
}

#[test]
fn a_cpu_stream_is_created_synchronized_and_dropped() {
    let s = Stream::new(Device::cpu()).unwrap();
    let x = [1f32, 2.0];
    let mut y = [0f32; 2];
    opkit::axpy(1.0, &opkit::Tensor::new(&x, &[2]).unwrap(), &mut opkit::TensorMut::new(&mut y, &[2]).unwrap(), Some(&s)).unwrap();
    s.synchronize().unwrap();
    assert_eq!(y, [1.0, 2.0]);
    opkit::synchronize(Device::cpu()).unwrap();
}

#[test]
fn no_device_of_a_missing_type() {
    // No vendor serves device type 99: allocating there is an error, not a crash.
    let e = DeviceBuffer::new(Device::new(DeviceType::Other(99), 0), 16).err().unwrap();
    assert!(matches!(e.status, Status::NotFound | Status::InvalidArgument | Status::Unsupported), "{}", e);
    assert!(!e.message.is_empty());
}
