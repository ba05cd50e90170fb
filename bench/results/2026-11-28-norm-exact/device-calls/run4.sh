#!/usr/bin/env bash
# Session 2026-11-28b, device call 4: the final build (rms_norm 2-byte exact four-pack
# backward; kRowGridWavesBalanced for the norm forwards and softmax only, cross-entropy back
# at 8 waves; the grid-lap test): tests, conformance, rocm [ops]; A/B of the ops whose
# launch changed against a872a91 (build-old); the exact-row experiment with the layer_norm
# lines without the prefetch.
set -u
R=$(mktemp -d); mkdir -p $R
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
t nbv-exact build-gpu6/devrun/nbv_exact
t cuda-tests build-gpu6/bin/opkit_cuda_tests
t conformance build-gpu6/bin/opkit-conformance --vendor cuda
S=build-gpu6/tests/hip_on_cuda
t rocm-tests-ops env LD_LIBRARY_PATH=$PWD/$S/hip:$PWD/$S/hipblaslt:$PWD/$S/rocblas build-gpu6/bin/opkit_rocm_tests "[ops]"
for b in old gpu6; do
  t ab-$b env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops cross_entropy,norm_forward,softmax --dtypes bf16,f32 --out $R/ab-$b.json
done
tar czf $OUT/r4.tgz -C $R .
