#!/usr/bin/env bash
# Session 2026-11-29 (eleventh), device call 1: rope_variants (the half split with
# Inductor's L2 hints, "half+keep", never run), then the CPU defaults against PyTorch CPU
# on the 16-core host after the pool's same-CPU change (59f59c0): cpu_compare at 1 thread
# and twice at 16 threads, on the build of a123759.
set -u
R=$(mktemp -d)
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r1.tgz -C $R .; }
nvidia-smi > $R/nvidia-smi.txt 2>&1; lscpu > $R/lscpu.txt 2>&1
t rope build-gpu/devrun/rope_variants
pack
C="env OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1"
for i in 1 2; do t cc16-$i $C python3 bench/cpu_compare.py --threads 16 --reps 21 --out $R/cc16-$i.json; pack; done
t cc1 $C python3 bench/cpu_compare.py --reps 11 --out $R/cc1.json
pack
