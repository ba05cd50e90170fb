#!/usr/bin/env bash
# Session 2026-11-29 (fourteenth), device call 5, on aa4343f (build-check as in call 4):
# compute-sanitizer memcheck and racecheck of rms_norm's new fp32 s2 stash kernels over the
# norm stash test case, side by side.
set -u
R=$(mktemp -d)
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r5.tgz -C $R .; }
STASH="ops: norm backwards through the stash kernels*"
t memcheck-s2 timeout 240 compute-sanitizer --tool memcheck --kernel-name kns=stash_f32_s2 build-check/bin/opkit_cuda_tests "$STASH" &
t racecheck-s2 timeout 240 compute-sanitizer --tool racecheck --kernel-name kns=stash_f32_s2 build-check/bin/opkit_cuda_tests "$STASH" &
wait
cat $R/times.txt
pack
