#!/usr/bin/env bash
# Session 2026-11-28 (ninth), device call 6: Nsight Compute of opkit's and Inductor's fp32
# rms_norm / layer_norm forwards at 32768x4096 (8152d07's build), for the next session.
set -u
R=$(mktemp -d); mkdir -p $R/inductor
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error TORCHINDUCTOR_CACHE_DIR=$R/inductor
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
t ncu-src timeout 150 env OPKIT_LIBRARY=$PWD/build-old/lib/libopkit.so.1 ncu --profile-from-start off --clock-control none --import-source yes --set full -o $R/src python3 bench/results/2026-11-28-s9/device-calls/ncu_f32_fwd.py
t ncu-details ncu -i $R/src.ncu-rep --page details
ncu -i $R/src.ncu-rep --page source --print-source sass --csv > /tmp/sass.csv 2>&1
t ncu-mix python3 bench/ncu_sass_mix.py /tmp/sass.csv 30
find $R/inductor -name "*.py" -path "*/c*" -size -40k | head -20 | xargs grep -l "def triton" 2>/dev/null | head -4 | while read f; do cp "$f" $R/inductor-$(basename "$f"); done
rm -rf $R/src.ncu-rep $R/inductor
tar czf $OUT/r6.tgz -C $R .
