#!/usr/bin/env bash
# Session 2026-11-29 (twelfth), device call 5, on the final build (build-check: the
# binaries scripts/gpu-check.sh runs, lib, tests/fake_vendor, tests/hip_on_cuda):
# (a) scripts/gpu-check.sh, its cuda and its rocm steps as two runs side by side
# (OPKIT_GPU_CHECK_ONLY); (b) then, the GPU quiet, the norm backwards through the library,
# build-old (the same tree without the stash grid's cap at kNormStashResident) against
# build-check, alternating once each.
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r5.tgz -C $R .; }
ROCM='^(hipshim-selftest|rocm-tests|rocm-conformance|rocm-rocblas-matmul|tiny_lm-rocm)$'
CUDA='^(opkit-info|cuda-tests|api-tests|conformance|pytest|cpu-unit-tests|cpu-defaults-vs-float64|tiny_lm-gpu|tiny_lm-cpu)$'
t0=$SECONDS
( OUT=$R/check-rocm OPKIT_GPU_CHECK_ONLY=$ROCM scripts/gpu-check.sh build-check > $R/check-rocm.txt 2>&1; echo "check-rocm rc $? $((SECONDS-t0)) s" >> $R/times.txt ) &
OUT=$R/check-cuda OPKIT_GPU_CHECK_ONLY=$CUDA scripts/gpu-check.sh build-check > $R/check-cuda.txt 2>&1; echo "check-cuda rc $? $((SECONDS-t0)) s" >> $R/times.txt
wait
cat $R/times.txt
pack
for b in old check; do
  t ab-$b-1 timeout 40 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm_backward --dtypes bf16,f16,f32 --out $R/ab-$b-1.json
done
pack
