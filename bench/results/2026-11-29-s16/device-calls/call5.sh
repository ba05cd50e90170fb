#!/usr/bin/env bash
# Session 2026-11-29 (sixteenth), device call 5, at 8722bb5: the bf16 norms against eager,
# torch.compile and Liger-Kernel in one run (call 4's run lacked the Liger wheel).
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
t compare-norms-bf16 timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm --dtypes bf16 --out $R/compare-norms-bf16.json
tar czf $OUT/r5.tgz --exclude=triton --exclude=inductor -C $R .
cat $R/times.txt
