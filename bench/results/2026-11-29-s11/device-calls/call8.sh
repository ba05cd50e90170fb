#!/usr/bin/env bash
# Session 2026-11-29 (eleventh), device call 8, on the final build (55905cb): what the
# remaining device time allowed of scripts/gpu-check.sh: the cuda vendor's whole test
# binary, its conformance run, tiny_lm on cuda, and the rocm vendor's cross-entropy tests
# through the HIP-over-CUDA test runtime (its host code changed: allow_shared,
# max_active_clusters). Not run: api tests, pytest, CPU unit tests, float64 conformance,
# the rest of the rocm steps.
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r8.tgz -C $R .; }
B=build-gpu
t cuda-tests timeout 250 $B/bin/opkit_cuda_tests
pack
t conformance timeout 40 $B/bin/opkit-conformance --vendor cuda
pack
t tiny_lm-gpu timeout 20 $B/bin/tiny_lm --device cuda --text examples/tiny_lm/corpus.txt
pack
shim=$B/tests/hip_on_cuda
t rocm-ce-tests timeout 70 env LD_LIBRARY_PATH="$PWD/$shim/hip:$PWD/$shim/hipblaslt:$PWD/$shim/rocblas" $B/bin/opkit_rocm_tests "ops: cross_entropy*"
pack
