#!/usr/bin/env bash
# Session 2026-11-28 (ninth), device call 3: the tree to commit (build-gpu: the fixed-group
# shuffle stage, bf16 softmax g128 back on the old conversion, layer_norm's 2-byte exact
# backward with the weight in registers and one FADD an element fewer in every layer_norm
# backward, the 2-byte exact softmax backward at 40 registers) against c53d36f (build-old),
# opkit alone, alternating twice; then every op against eager, torch.compile and
# Liger-Kernel in one run (bf16, then f32).
set -u
R=$(mktemp -d); mkdir -p $R/triton
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target <site> .whl/*.whl
export PYTHONPATH=<site>:$PWD/python OPKIT_LOG_LEVEL=error TRITON_CACHE_DIR=$R/triton
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r3.tgz --exclude=triton -C $R .; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt 2>&1
O="norm_forward,norm_backward,softmax"
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 120 env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops $O --dtypes bf16,f16,f32 --out $R/ab-$b-$i.json
done; pack; done
t compare-bf16 timeout 200 env OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --dtypes bf16 --out $R/compare-bf16.json
pack
t compare-f32 timeout 200 env OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --dtypes f32 --out $R/compare-f32.json
pack
