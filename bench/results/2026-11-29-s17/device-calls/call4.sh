#!/usr/bin/env bash
# Session 2026-11-29 (seventeenth), device call 4, on the tree of call 3 (to be committed):
# (a) the whole GPU check with its six parts side by side, the sanitize part included
# (scripts/gpu-check-split.sh build-check); (b) as far as the call's time allows, the
# forwards and cross-entropy against eager, torch.compile and Liger-Kernel (bf16).
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r4.tgz --exclude=triton --exclude=inductor -C $R .; }
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
if [ $SECONDS -lt 480 ]; then
  t compare-bf16 timeout $((585 - SECONDS)) env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm_forward,softmax_forward,cross_entropy --dtypes bf16 --out $R/compare-bf16.json
else echo "compare-bf16 skipped: $SECONDS s used" | tee -a $R/times.txt; fi
pack
cat $R/times.txt
