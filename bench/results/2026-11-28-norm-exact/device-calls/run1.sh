#!/usr/bin/env bash
# Session 2026-11-28 (date 2026-11-28 on the clock), device call 1: the full GPU check of
# the final build of a872a91 (+ the new GPU test rows), then the exact-row body for the
# bf16 norm backwards (bench/experiments/norm_backward_variants.cu -DOPK_EXACT_SWEEP).
set -u
R=$(mktemp -d); mkdir -p $R/check
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
nvidia-smi > $R/nvidia-smi.txt 2>&1
t gpu-check env OUT=$R/check scripts/gpu-check.sh build-gpu6
t nbv-exact build-gpu6/devrun/nbv_exact
tar czf $OUT/r1.tgz -C $R .
