#!/usr/bin/env bash
# Session 2026-11-28d, device call 6: the fp32 forwards' wide kernels (opk_*_fwd_wide_f32):
# cuda tests, conformance, rocm [ops], api tests; A/B of the forwards against e84aa40
# (build-old; the merge since then touched only the 2-byte layer_norm backward),
# alternating twice; then every op against the peers on this machine.
set -u
R=$(mktemp -d); mkdir -p $R
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
nvidia-smi > $R/nvidia-smi.txt 2>&1
t cuda-tests build-gpu6/bin/opkit_cuda_tests
t conformance build-gpu6/bin/opkit-conformance --vendor cuda
t api-tests build-gpu6/bin/opkit_api_tests
S=build-gpu6/tests/hip_on_cuda
t rocm-tests-ops env LD_LIBRARY_PATH=$PWD/$S/hip:$PWD/$S/hipblaslt:$PWD/$S/rocblas build-gpu6/bin/opkit_rocm_tests "[ops]"
for i in 1 2; do for b in old gpu6; do
  t ab-$b-$i env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm_forward,softmax_forward --dtypes bf16,f32 --out $R/ab-$b-$i.json
done; done
tar czf $OUT/r7a.tgz -C $R .
t compare timeout 240 env OPKIT_LIBRARY=$PWD/build-gpu6/lib/libopkit.so.1 python3 bench/gpu_compare.py --dtypes bf16,f32 --out $R/compare.json
tar czf $OUT/r7.tgz -C $R .
