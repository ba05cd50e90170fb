//! opkit::init on its own test binary (one process): the first explicit init succeeds,
//! a second is refused with InvalidArgument, and a NUL in a string never reaches C.
use opkit::{InitOptions, Status};

#[test]
fn init_once_then_refused() {
    let bad = InitOptions { vendors: Some("cu\0da".into()), ..Default::default() };
    let e = opkit::init(&bad).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(e.message.contains("NUL"), "{}", e.message);

    let opts = InitOptions { vendor_path: Some("/nonexistent-opkit-vendors".into()), log_level: Some(opkit::sys::OPKIT_LOG_OFF),
                             ..Default::default() };
    opkit::init(&opts).unwrap();
    let e = opkit::init(&opts).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(!e.message.is_empty());
    // SAFETY: nothing else runs in this test binary.
    unsafe { opkit::shutdown() };
    opkit::init(&opts).unwrap(); // initializable again after shutdown
}
