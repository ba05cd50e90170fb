#!/usr/bin/env bash
# Installs everything opkit needs to build and test on Debian 12 (run as root).
# The CUDA toolkit is optional and not an apt package here: when nvcc is found (PATH or
# /usr/local/cuda) the cuda vendor is built too. Debian's HIP toolchain (hipcc, clang 15,
# the AMD device libraries, libamdhip64) is installed so the rocm vendor builds: it needs
# no AMD GPU to build, and without one it reports NO_DEVICE (docs/rocm-vendor.md).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(build-essential cmake pkg-config catch2 libspdlog-dev libfmt-dev libdlpack-dev
          libbenchmark-dev python3 python3-numpy python3-pytest python3-pip binutils abigail-tools
          hipcc libamdhip64-dev rocm-device-libs
          dpkg-dev lintian   # the Debian packages: dpkg-shlibdeps for CPack, lintian for CI
          cargo              # the Rust bindings (Debian's rustc 1.63; scripts/ci-rust.sh)
          python3-venv       # the Python package's pip-install test
          python3-torch      # opkit.torch's CPU tests (Debian's PyTorch 1.13: the autograd.Function path)
          libopenblas0-pthread   # a CBLAS for the blas vendor's tests (docs/blas-vendor.md)
          libdnnl2               # oneDNN, the blas vendor's bf16 GEMM (docs/blas-vendor.md)
          xz-utils)              # bench/device_call.sh's variant archives (its ctest case)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# NumPy has no bfloat16; ml_dtypes adds it for the Python binding's bf16 tests. Pinned to
# the last release that works with Debian 12's NumPy 1.24, installed without deps so pip
# never replaces a Debian package.
if ! /usr/bin/python3 -c "import ml_dtypes" 2>/dev/null; then
  /usr/bin/python3 -m pip install -q --break-system-packages --no-deps "ml_dtypes==0.4.1"
fi

# NVIDIA's cuobjdump and nvdisasm (pip wheels; the CUDA toolkit here has neither), where the
# CUDA toolkit is: bench/sass_static.py reads the cuda vendor's SASS with them, and its test
# compiles a kernel with nvcc and reads it end to end.
if [ -x /usr/local/cuda/bin/nvcc ] &&
   ! /usr/bin/python3 -c "import glob, sys; sys.exit(not any(glob.glob(p + '/nvidia/cu*/bin/nvdisasm') for p in sys.path))" 2>/dev/null; then
  /usr/bin/python3 -m pip install -q --break-system-packages --no-deps \
    "nvidia-cuda-cuobjdump==13.5.37" "nvidia-cuda-nvdisasm==13.5.37"
fi
