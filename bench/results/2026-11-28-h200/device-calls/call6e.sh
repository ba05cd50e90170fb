#!/usr/bin/env bash
# Session 2026-11-28e, device call 6: rms_norm's fp32 backward with register sums at four
# packs a thread (opk_rms_bwd_regs_f32) next to layer_norm's. A/B of the norm backwards
# against dcb8131 (build-headab), alternating twice; cuda tests, conformance and rocm [ops]
# on the new build.
set -u
R=$(mktemp -d); mkdir -p $R
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
for i in 1 2; do for b in headab gpu6; do
  t ab-$b-$i env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm_backward --dtypes f32 --out $R/ab-$b-$i.json
done; done
tar czf $OUT/r6a.tgz -C $R .
t cuda-tests build-gpu6/bin/opkit_cuda_tests
t conformance build-gpu6/bin/opkit-conformance --vendor cuda
S=build-gpu6/tests/hip_on_cuda
t rocm-tests-ops env LD_LIBRARY_PATH=$PWD/$S/hip:$PWD/$S/hipblaslt:$PWD/$S/rocblas build-gpu6/bin/opkit_rocm_tests "[ops]"
tar czf $OUT/r6.tgz -C $R .
