#!/usr/bin/env bash
# Session 2026-11-29 (thirteenth), device call 3: (a) bench/experiments/norm_forward_stash.cu
# (the forwards through a cp.async ring in shared memory; never run before) twice, the GPU
# quiet; (b) scripts/gpu-check.sh's stash-kernels-ran step alone on the build of call 2
# (build-check; the step ran past its time beside the other steps in calls 1 and 2).
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r3.tgz -C $R .; }
t fwd-stash-1 timeout 120 build-gpu/devrun/norm_forward_stash
pack
t fwd-stash-2 timeout 120 build-gpu/devrun/norm_forward_stash
pack
( export OUT=$R/check-stash OPKIT_GPU_CHECK_ONLY='^stash-kernels-ran$'; t check-stash timeout 300 scripts/gpu-check.sh build-check )
cat $R/times.txt
pack
