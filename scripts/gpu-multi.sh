#!/usr/bin/env bash
# gpu-multi.sh BUILD OUT — issue 15's runs on a machine with two or more GPUs, from a
# build directory copied there (carry): the multi-GPU test binaries (cuda; rocm on the
# shims), the device-1 pytest cases, and the DDP (NCCL) equality check. Logs under OUT;
# exit status non-zero when any part failed (77 from a part means it was skipped: fewer
# than two GPUs).
set -uo pipefail
build=$(cd "$1" && pwd); out=$2
cd "$(dirname "$0")/.."
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 OPKIT_LOG_LEVEL=error OPKIT_LIBRARY=$build/lib/libopkit.so.1
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
{ date -u; nvidia-smi -L; nvidia-smi topo -m; } > "$out/machine.txt" 2>&1
rc=0
run() {  # name, command...
  local name=$1; shift
  local t0=$SECONDS
  "$@" > "$out/$name.txt" 2>&1; local r=$?
  echo "$name: rc $r, $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
  [ $r -eq 0 ] || rc=1
}
run multigpu-tests "$build/bin/opkit_cuda_multigpu_tests" -s
# The rocm vendor on the same two GPUs through the HIP-over-CUDA test runtime, in a build
# made with -DOPKIT_ROCM_TEST_ON_CUDA=ON (tests/hip_on_cuda/README.md).
shim=$build/tests/hip_on_cuda
if [ -x "$build/bin/opkit_rocm_multigpu_tests" ] && [ -d "$shim/hip" ]; then
  run rocm-multigpu-tests env LD_LIBRARY_PATH="$shim/hip:$shim/hipblaslt:$shim/rocblas" \
    "$build/bin/opkit_rocm_multigpu_tests" -s
fi
run pytest-multigpu python3 -m pytest -q -rs -p no:cacheprovider python/tests/test_torch_multigpu.py
run ddp-nccl python3 bench/ddp_check.py
exit $rc
