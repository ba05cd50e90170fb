#!/usr/bin/env bash
# Session 2026-11-29 (thirteenth), device call 1, on the build of 12b26c6 (build-check: the
# binaries scripts/gpu-check.sh runs, lib, tests/fake_vendor, tests/hip_on_cuda) and the
# experiment bench/experiments/norm_backward_stash.cu as of f42e8dc (build-gpu/devrun):
# (a) the GPU quiet: the experiment twice (its "knob" and "cluster" lines have not run yet);
# (b) scripts/gpu-check.sh in three runs side by side (OPKIT_GPU_CHECK_ONLY), with its two
# steps that have not run yet (cuda-tests-no-clusters, stash-kernels-ran), and beside them
# compute-sanitizer racecheck of the norm stash test case at a longer timeout.
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r1.tgz -C $R .; }
nvidia-smi > $R/nvidia-smi.txt 2>&1
t stash-1 timeout 60 build-gpu/devrun/norm_backward_stash
t stash-2 timeout 60 build-gpu/devrun/norm_backward_stash
pack
A='^(opkit-info|cuda-tests|api-tests|cuda-tests-no-clusters|stash-kernels-ran)$'
B='^(conformance|pytest|cpu-unit-tests|cpu-defaults-vs-float64|tiny_lm-gpu|tiny_lm-cpu)$'
C='^(hipshim-selftest|rocm-tests|rocm-conformance|rocm-rocblas-matmul|tiny_lm-rocm)$'
for g in A B C; do
  ( export OUT=$R/check-$g OPKIT_GPU_CHECK_ONLY=${!g}; t check-$g timeout 520 scripts/gpu-check.sh build-check ) &
done
t racecheck timeout 500 compute-sanitizer --tool racecheck --kernel-name kns=_bwd_stash_ \
  build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
wait
cat $R/times.txt
pack
