#!/usr/bin/env bash
# ci-rust.sh [LIB_DIR] — the Rust bindings with Debian's toolchain (cargo 0.66 / rustc 1.63,
# `apt-get install cargo`), offline: builds opkit-sys and opkit against LIB_DIR's libopkit
# (default build/lib, what ./scripts/build.sh made), runs `cargo test` (the C API's
# declarations against opkit.h and the library, every op on the CPU against f64 math in
# the test, the wrapper's errors and resources) and the tiny_lm example, whose loss must
# fall. Warnings fail the build. Cargo's home and target directory stay in build/rust.
set -euo pipefail
cd "$(dirname "$0")/.."
lib=$(cd "${1:-build/lib}" && pwd)
[ -e "$lib/libopkit.so.1" ] || { echo "ci-rust: no libopkit.so.1 in $lib (run ./scripts/build.sh)" >&2; exit 1; }
# Debian's own cargo and rustc, whatever else is on PATH (a rustup toolchain would hide
# what CI's rustc 1.63 cannot compile).
export CARGO=/usr/bin/cargo RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
for tool in $CARGO $RUSTC $RUSTDOC; do
  [ -x "$tool" ] || { echo "ci-rust: $tool missing (apt-get install cargo)" >&2; exit 1; }
done
export CARGO_HOME=$PWD/build/rust/cargo-home CARGO_TARGET_DIR=$PWD/build/rust/target
export CARGO_NET_OFFLINE=true OPKIT_LIB_DIR=$lib LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export RUSTFLAGS="-D warnings"
unset OPKIT_VENDOR_PATH OPKIT_VENDORS
t0=$SECONDS
echo "ci-rust: $($RUSTC --version), $($CARGO --version); libopkit from $lib"
$CARGO test --offline --manifest-path bindings/rust/Cargo.toml
$CARGO run --offline --quiet --manifest-path bindings/rust/Cargo.toml -p opkit-examples --bin tiny_lm -- 40
echo "ci-rust: ok ($((SECONDS - t0)) s)"
