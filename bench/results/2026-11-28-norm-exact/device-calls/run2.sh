#!/usr/bin/env bash
# Session 2026-11-28b, device call 2: correctness of the rms_norm 2-byte exact four-pack
# change (cuda tests, norm conformance, rocm [ops] over HIP-over-CUDA); library A/B against
# HEAD a872a91 (build-old) alternating twice; the grid-waves experiment (OPK_EXP_WAVES, a
# temporary env switch in this build only) for the forward row kernels; the peers.
set -u
R=$(mktemp -d); mkdir -p $R
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
t cuda-tests build-gpu6/bin/opkit_cuda_tests
t conformance build-gpu6/bin/opkit-conformance --vendor cuda
S=build-gpu6/tests/hip_on_cuda
if [ -d $S ]; then
  t rocm-tests-ops env LD_LIBRARY_PATH=$PWD/$S/hip:$PWD/$S/hipblaslt:$PWD/$S/rocblas build-gpu6/bin/opkit_rocm_tests "[ops]"
fi
for i in 1 2; do for b in old gpu6; do
  t ab-$b-$i env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm --dtypes bf16,f32 --out $R/ab-$b-$i.json
done; done
for i in 1 2; do for w in 8 0 32; do
  t waves-$w-$i env OPK_EXP_WAVES=$w OPKIT_LIBRARY=$PWD/build-gpu6/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm_forward,softmax --dtypes bf16,f32 --out $R/waves-$w-$i.json
done; done
t compare-norm-bwd env OPKIT_LIBRARY=$PWD/build-gpu6/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops rms_norm_backward --dtypes bf16 --out $R/compare-rms-bwd.json
tar czf $OUT/r2.tgz -C $R .
