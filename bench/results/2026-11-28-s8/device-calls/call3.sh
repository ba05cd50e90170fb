#!/usr/bin/env bash
# Session 2026-11-28 (eighth), device call 3: bf16 packs converted a word at a time, no
# FADD of a zero weight offset, the block-wide reduction's last stage through shuffles
# (build-gpu) against 5e17c75 (build-old), alternating twice, opkit alone; then the
# changed ops against the peers; then the correctness checks the change needs (cuda tests,
# conformance, pytest, rocm tests and conformance over HIP-over-CUDA).
set -u
R=$(mktemp -d); mkdir -p $R/triton
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target <site> .whl/*.whl
export PYTHONPATH=<site>:$PWD/python OPKIT_LOG_LEVEL=error TRITON_CACHE_DIR=$R/triton
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r3.tgz --exclude=triton -C $R .; }
O="norm_forward,norm_backward,softmax,cross_entropy"
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 90 env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops $O --dtypes bf16,f32 --out $R/ab-$b-$i.json
done; pack; done
t compare timeout 150 env OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops $O --dtypes bf16 --out $R/compare.json
pack
S=$PWD/build-gpu/tests/hip_on_cuda; HIP=$S/hip:$S/hipblaslt:$S/rocblas
t cuda-tests timeout 150 build-gpu/bin/opkit_cuda_tests
t conformance build-gpu/bin/opkit-conformance --vendor cuda
t rocm-conformance env LD_LIBRARY_PATH=$HIP build-gpu/bin/opkit-conformance --vendor rocm
pack
t pytest timeout 60 env OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 -m pytest -q -rfs -p no:cacheprovider python/tests
t rocm-tests timeout 120 env LD_LIBRARY_PATH=$HIP build-gpu/bin/opkit_rocm_tests
pack
