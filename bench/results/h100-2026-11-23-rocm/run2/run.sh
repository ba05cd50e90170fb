#!/usr/bin/env bash
# One device call: the HIP-over-CUDA proof of the rocm vendor (issue 10) and the cuda
# vendor's re-run against the final tolerance table, from build/ (built on the CPU machine
# with -DOPKIT_CUDA_ARCHS=90 -DOPKIT_CUDA_PTX= -DOPKIT_ROCM_TEST_ON_CUDA=ON).
set -u
R=/tmp/res; mkdir -p $R
cd "$(dirname "$0")/src"
B=../t
S=$B/tests/hip_on_cuda
SHIM=$PWD/$S/hip:$PWD/$S/hipblaslt:$PWD/$S/rocblas
export OPKIT_LOG_LEVEL=error LD_LIBRARY_PATH=$PWD/../deps
step() { local n=$1; shift; local t0=$SECONDS; "$@" > $R/$n.txt 2>&1; echo "$n rc=$? $((SECONDS-t0))s: $(tail -1 $R/$n.txt | cut -c1-150)"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt; cat $R/gpu.txt
step shim-selftest $S/opkit_hipshim_selftest
step shim-selftest-nodev $S/opkit_hipshim_selftest --no-device
step rocm-info env LD_LIBRARY_PATH=$SHIM $B/bin/opkit-info
step rocm-tests env LD_LIBRARY_PATH=$SHIM $B/bin/opkit_rocm_tests
step rocm-conformance env LD_LIBRARY_PATH=$SHIM OPKIT_TOLERANCE_REPORT=$R/tol-rocm.txt $B/bin/opkit-conformance --vendor rocm --report-errors
step rocm-rocblas-matmul env LD_LIBRARY_PATH=$PWD/$S/hip:$PWD/$S/rocblas $B/bin/opkit_rocm_tests "[matmul]"
step rocm-rocblas-conformance env LD_LIBRARY_PATH=$PWD/$S/hip:$PWD/$S/rocblas $B/bin/opkit-conformance --vendor rocm --ops matmul
step rocm-noblas-conformance env LD_LIBRARY_PATH=$PWD/$S/hip $B/bin/opkit-conformance --vendor rocm --ops matmul,axpy
step rocm-noblas-allowed env LD_LIBRARY_PATH=$PWD/$S/hip $B/bin/opkit-conformance --vendor rocm --ops matmul,axpy --allow-decline matmul
step tiny_lm-rocm env LD_LIBRARY_PATH=$SHIM $B/bin/tiny_lm --device rocm --text examples/tiny_lm/corpus.txt
step tiny_lm-cpu $B/bin/tiny_lm --device cpu --text examples/tiny_lm/corpus.txt
for i in 1 2; do
  for d in cuda rocm; do
    step overhead-$d-$i env LD_LIBRARY_PATH=$SHIM taskset -c 2 $B/bin/bench_launch_overhead --device $d --json
  done
done
python3 tests/support/tolerance_report.py $R/tol-rocm.txt --markdown > $R/tol-rocm.md 2>&1
cd $R && tar czf $OUT/rocm-run2.tgz .
