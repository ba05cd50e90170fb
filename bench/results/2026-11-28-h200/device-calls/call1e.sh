#!/usr/bin/env bash
# Session 2026-11-28e, device call 1: the prepared experiments (fixed-B forwards, softmax
# backward variants) and ncu source-level profiles of the two widest bf16 gaps to Liger.
set -u
R=$(mktemp -d); mkdir -p $R/triton
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/python OPKIT_LOG_LEVEL=error TRITON_CACHE_DIR=$R/triton
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
nvidia-smi > $R/nvidia-smi.txt 2>&1
t rfv build-gpu6/devrun/rfv
t sbv build-gpu6/devrun/sbv
tar czf $OUT/r1a.tgz -C $R .
K='regex:opk_rms_fwd|_rms_norm_forward|opk_softmax_bwd|_softmax_.*backward|_softmax_bwd'
t ncu-src env OPKIT_LIBRARY=$PWD/build-gpu6/lib/libopkit.so.1 ncu --clock-control none --import-source yes -k "$K" --set full -o $R/src python3 build-gpu6/devrun/ncu_src.py
t ncu-details ncu -i $R/src.ncu-rep --page details
t ncu-sass ncu -i $R/src.ncu-rep --page source --print-source sass --csv
rm -f $R/src.ncu-rep
tar czf $OUT/r1.tgz -C $R .
