#!/usr/bin/env bash
# The session's last GPU call: scripts/gpu-check.sh on build-gpurun3/build (HEAD's code,
# -DOPKIT_CUDA_ARCHS=90 -DOPKIT_ROCM_TEST_ON_CUDA=ON, benchmarks on), then the host
# overhead per call (C, both GPU vendors) and through the Python binding.
cd "$(dirname "$0")/.."
R=/tmp/gc; mkdir -p $R
B=build-gpurun3/build
S=$PWD/$B/tests/hip_on_cuda
export LD_LIBRARY_PATH=$PWD/build-gpurun3/deps
OUT=$R timeout 470 scripts/gpu-check.sh $B > $R/gpu-check.txt 2>&1; echo "gpu-check rc=$?" >> $R/gpu-check.txt
for i in 1 2; do for d in cuda rocm; do
  LD_LIBRARY_PATH=$S/hip:$S/hipblaslt:$S/rocblas taskset -c 2 $B/bin/bench_launch_overhead --device $d --json > $R/overhead-$d-$i.json 2>&1
done; done
OPKIT_LIBRARY=$PWD/$B/lib/libopkit.so.1 timeout 60 python3 python/bench_overhead.py --torch-cuda --dtype bf16 > $R/py_overhead.txt 2>&1
cd $R && tar czf $OUT/final-check.tgz .
