#!/usr/bin/env bash
# Session 2026-11-29 (sixteenth), device call 4, at 8722bb5 (layer_norm's 2-byte stash
# backward): (a) the whole GPU check (scripts/gpu-check-split.sh build-check); (b) the norm
# backwards and forwards against eager, torch.compile and Liger-Kernel in one run (bf16,
# f32); (c) the CPU embedding forward on the 16-core host against PyTorch at 16 threads,
# three alternating runs (bench/cpu_compare.py, as far as the call's time allows).
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r4.tgz --exclude=triton --exclude=inductor -C $R .; }
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=420; t check-split scripts/gpu-check-split.sh build-check )
pack
if [ $SECONDS -lt 470 ]; then
  t compare-norms timeout $((560 - SECONDS)) env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm --dtypes bf16,f32 --out $R/compare-norms.json
else echo "compare-norms skipped: $SECONDS s used" | tee -a $R/times.txt; fi
pack
for i in 1 2 3; do
  if [ $SECONDS -gt 570 ]; then echo "cpu-emb-$i skipped: $SECONDS s used" | tee -a $R/times.txt; continue; fi
  t cpu-emb-$i timeout $((590 - SECONDS)) env OPKIT_VENDORS_DISABLE=cuda,rocm PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/cpu_compare.py --ops embedding_forward --threads 16 --reps 21 --out $R/cpu-emb-$i.json
  pack
done
cat $R/times.txt
pack
