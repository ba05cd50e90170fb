#!/usr/bin/env bash
# Session 2026-11-28 (eighth), device call 5: what lands: bf16 packs a word at a time
# (except layer_norm's long-row backward), no FADD of a zero weight offset, the reduction
# as before (build-gpu), against 5e17c75 (build-old), alternating twice; then conformance
# on cuda and on rocm over HIP-over-CUDA, and pytest.
set -u
R=$(mktemp -d)
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r5.tgz -C $R .; }
O="norm_forward,norm_backward,softmax,cross_entropy"
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 45 env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops $O --dtypes bf16,f32 --out $R/ab-$b-$i.json
done; done
pack
S=$PWD/build-gpu/tests/hip_on_cuda; HIP=$S/hip:$S/hipblaslt:$S/rocblas
t conformance build-gpu/bin/opkit-conformance --vendor cuda
t rocm-conformance env LD_LIBRARY_PATH=$HIP build-gpu/bin/opkit-conformance --vendor rocm
pack
t pytest timeout 45 env OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 -m pytest -q -rfs -p no:cacheprovider python/tests
pack
