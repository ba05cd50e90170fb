#!/usr/bin/env bash
# Final check of HEAD on the H100: both GPU vendors (the rocm one through the HIP-over-CUDA
# runtime) — tests, conformance, tiny_lm — from build/ made with
# -DOPKIT_CUDA_ARCHS=90 -DOPKIT_CUDA_PTX= -DOPKIT_ROCM_TEST_ON_CUDA=ON.
set -u
R=/tmp/res; mkdir -p $R
cd "$(dirname "$0")/src"
B=../t
S=$B/tests/hip_on_cuda
SHIM=$PWD/$S/hip:$PWD/$S/hipblaslt:$PWD/$S/rocblas
export OPKIT_LOG_LEVEL=error
step() { local n=$1; shift; local t0=$SECONDS; "$@" > $R/$n.txt 2>&1; echo "$n rc=$? $((SECONDS-t0))s: $(tail -1 $R/$n.txt | cut -c1-150)"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt; cat $R/gpu.txt
step shim-selftest $S/opkit_hipshim_selftest
step cuda-tests $B/bin/opkit_cuda_tests
step cuda-conformance $B/bin/opkit-conformance --vendor cuda
step rocm-tests env LD_LIBRARY_PATH=$SHIM $B/bin/opkit_rocm_tests
step rocm-conformance env LD_LIBRARY_PATH=$SHIM $B/bin/opkit-conformance --vendor rocm
step rocm-rocblas-matmul env LD_LIBRARY_PATH=$PWD/$S/hip:$PWD/$S/rocblas $B/bin/opkit_rocm_tests "[matmul]"
step tiny_lm-rocm env LD_LIBRARY_PATH=$SHIM $B/bin/tiny_lm --device rocm --text examples/tiny_lm/corpus.txt
step tiny_lm-cuda $B/bin/tiny_lm --device cuda --text examples/tiny_lm/corpus.txt
step tiny_lm-cpu $B/bin/tiny_lm --device cpu --text examples/tiny_lm/corpus.txt
step api-tests $B/bin/opkit_api_tests
cd $R && tar czf $OUT/final.tgz .
