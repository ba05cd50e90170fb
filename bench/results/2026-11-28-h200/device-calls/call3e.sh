#!/usr/bin/env bash
# Session 2026-11-28e, device call 3: every op against the peers on the build of 5c1f1d2,
# then ncu of the bf16 rms_norm forward and the fp32 layer_norm backward against Liger.
set -u
R=$(mktemp -d); mkdir -p $R
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
nvidia-smi > $R/nvidia-smi.txt 2>&1
t compare timeout 300 env OPKIT_LIBRARY=$PWD/build-gpu6/lib/libopkit.so.1 python3 bench/gpu_compare.py --dtypes bf16,f32 --out $R/compare.json
tar czf $OUT/r3a.tgz -C $R .
K='regex:opk_rms_fwd|_rms_norm_forward|opk_ln_bwd|opk_column_sum|_layer_norm_backward'
t ncu-src env OPKIT_LIBRARY=$PWD/build-gpu6/lib/libopkit.so.1 ncu --clock-control none --import-source yes -k "$K" --set full -o $R/src python3 build-gpu6/devrun/ncu_src3.py
t ncu-details ncu -i $R/src.ncu-rep --page details
t ncu-sass ncu -i $R/src.ncu-rep --page source --print-source sass --csv
rm -f $R/src.ncu-rep
tar czf $OUT/r3.tgz -C $R .
