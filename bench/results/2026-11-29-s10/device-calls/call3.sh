#!/usr/bin/env bash
# Session 2026-11-29 (tenth), device call 3: bench/experiments/ce_loss_variants.cu (the
# cross-entropy loss alone at other occupancies and blocks) and rope_variants.cu (rope
# with other heads in flight, a dense one-pair-a-thread kernel and Inductor's half split).
set -u
R=$(mktemp -d)
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt 2>&1
t rope timeout 200 build-gpu/devrun/rope_variants
tar czf $OUT/r3.tgz -C $R .
t ce timeout 300 build-gpu/devrun/ce_loss_variants
tar czf $OUT/r3.tgz -C $R .
