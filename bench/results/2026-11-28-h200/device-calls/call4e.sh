#!/usr/bin/env bash
# Session 2026-11-28e, device call 4: layer_norm's fp32 backward with register sums
# (opk_ln_bwd_regs_f32). A/B against dcb8131 (build-headab), alternating twice; the cuda
# tests, conformance and the rocm [ops] tests on the new build; the peers' rows for the
# norm backwards.
set -u
R=$(mktemp -d); mkdir -p $R
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
for i in 1 2; do for b in headab gpu6; do
  t ab-$b-$i env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm_backward --dtypes f32 --out $R/ab-$b-$i.json
done; done
tar czf $OUT/r4a.tgz -C $R .
t cuda-tests build-gpu6/bin/opkit_cuda_tests
t conformance build-gpu6/bin/opkit-conformance --vendor cuda
S=build-gpu6/tests/hip_on_cuda
t rocm-tests-ops env LD_LIBRARY_PATH=$PWD/$S/hip:$PWD/$S/hipblaslt:$PWD/$S/rocblas build-gpu6/bin/opkit_rocm_tests "[ops]"
t rocm-conformance env LD_LIBRARY_PATH=$PWD/$S/hip:$PWD/$S/hipblaslt:$PWD/$S/rocblas build-gpu6/bin/opkit-conformance --vendor rocm
t compare-norm-bwd env OPKIT_LIBRARY=$PWD/build-gpu6/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm_backward --dtypes bf16,f32 --out $R/compare-norm-bwd.json
tar czf $OUT/r4.tgz -C $R .
