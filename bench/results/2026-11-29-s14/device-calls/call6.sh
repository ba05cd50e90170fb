#!/usr/bin/env bash
# Session 2026-11-29 (fourteenth), device call 6, on aa4343f (build-check as in calls 4-5):
# call 5's racecheck, instrumenting only the fp32 s2 kernels, stopped at the first fp32
# row of 16384 with "Internal Sanitizer Error: The Sanitizer failed to handle a hardware
# exception" (the split kernels, which use distributed shared memory, running
# uninstrumented under racecheck; they passed racecheck instrumented in the thirteenth
# session). Here racecheck instruments both (kns=stash_f32: the s0-s2 and k2 kernels).
set -u
R=$(mktemp -d)
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
t racecheck-f32 timeout 160 compute-sanitizer --tool racecheck --kernel-name kns=stash_f32 build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
tar czf $OUT/r6.tgz -C $R .
