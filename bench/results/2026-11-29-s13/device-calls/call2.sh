#!/usr/bin/env bash
# Session 2026-11-29 (thirteenth), device call 2, on the build with the fp32 norm backwards
# split over clusters of two blocks (opk_{rms,ln}_bwd_stash_f32_k2[_exact]; build-check as
# in call 1; build-old: the library of 12b26c6, call 1's): (a) the GPU quiet: the stash test
# case; the norm backwards through the library, build-old against build-check, alternating
# twice; the norms against eager, torch.compile and Liger-Kernel in one run; (b) then, side
# by side: scripts/gpu-check.sh in four runs (OPKIT_GPU_CHECK_ONLY; its stash-kernels-ran
# step now profiles each kernel's first launch alone), compute-sanitizer memcheck and
# racecheck of the split kernels, and Nsight Compute's summary of the split kernels alone.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r2.tgz --exclude=triton --exclude=inductor -C $R .; }
STASH="ops: norm backwards through the stash kernels*"
t stash-test timeout 150 build-check/bin/opkit_cuda_tests "$STASH"
pack
for i in 1 2; do for b in old check; do
  t ab-$b-$i timeout 60 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm_backward --dtypes f32,bf16 --out $R/ab-$b-$i.json
done; done
pack
t compare-norms timeout 120 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm --dtypes bf16,f32 --out $R/compare-norms.json
pack
A1='^(cuda-tests)$'
A2='^(opkit-info|api-tests|cuda-tests-no-clusters|stash-kernels-ran)$'
B='^(conformance|pytest|cpu-unit-tests|cpu-defaults-vs-float64|tiny_lm-gpu|tiny_lm-cpu)$'
C='^(hipshim-selftest|rocm-tests|rocm-conformance|rocm-rocblas-matmul|tiny_lm-rocm)$'
for g in A1 A2 B C; do
  ( export OUT=$R/check-$g OPKIT_GPU_CHECK_ONLY=${!g}; t check-$g timeout 340 scripts/gpu-check.sh build-check ) &
done
t memcheck-k2 timeout 300 compute-sanitizer --tool memcheck --kernel-name kns=stash_f32_k2 build-check/bin/opkit_cuda_tests "$STASH" &
t racecheck-k2 timeout 300 compute-sanitizer --tool racecheck --kernel-name kns=stash_f32_k2 build-check/bin/opkit_cuda_tests "$STASH" &
t ncu-k2 timeout 300 ncu --print-summary per-kernel --metrics gpu__time_duration.sum -k regex:stash_f32_k2 build-check/bin/opkit_cuda_tests "$STASH"
wait
cat $R/times.txt
pack
