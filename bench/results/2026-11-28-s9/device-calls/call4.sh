#!/usr/bin/env bash
# Session 2026-11-28 (ninth), device call 4: every GPU check (scripts/gpu-check.sh) on the
# build of call 3.
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
t gpu-check env OUT=$R/check scripts/gpu-check.sh build-gpu
tar czf $OUT/r4.tgz -C $R .
