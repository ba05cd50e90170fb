#!/usr/bin/env bash
# Session 2026-11-29 (fourteenth), device call 4, on the session's last code (RowRing, the
# rms_norm fp32 s2 kernels; build-check): (a) the machine quiet: the CPU defaults against
# PyTorch CPU for the ops that missed 1.25x on this host in the eleventh session (softmax,
# embedding), twice at 16 threads and once at one; (b) the whole GPU check as five parts
# side by side (scripts/gpu-check-split.sh).
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r4.tgz -C $R .; }
C="env PYTHONPATH=$PWD/python OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1"
for i in 1 2; do t cc16-$i timeout 60 $C python3 bench/cpu_compare.py --ops softmax,embedding --threads 16 --reps 21 --out $R/cc16-$i.json; done
t cc1 timeout 60 $C python3 bench/cpu_compare.py --ops softmax,embedding --threads 1 --reps 11 --out $R/cc1.json
pack
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=400; t check-split scripts/gpu-check-split.sh build-check )
cat $R/times.txt
pack
