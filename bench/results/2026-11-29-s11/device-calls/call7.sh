#!/usr/bin/env bash
# Session 2026-11-29 (eleventh), device call 7: the stash kernels after the review's fixes
# (55905cb: exchange slots, dynamic shared memory limit, test outputs starting at 7 and four
# more shapes): the stash test case under Nsight Compute (its assertions, and which kernel
# each forward ran), then under compute-sanitizer memcheck and racecheck (the stash
# kernels only).
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r7.tgz -C $R .; }
S=build-gpu/bin/opkit_cuda_tests
C="ops: cross_entropy forward with dlogits through the stash kernels*"
t ncu-stash timeout 170 ncu --print-summary per-kernel --metrics gpu__time_duration.sum -k regex:opk_ce_fwd "$S" "$C"
pack
t memcheck timeout 170 compute-sanitizer --tool memcheck --kernel-name kns=opk_ce_fwd_stash "$S" "$C"
pack
t racecheck timeout 170 compute-sanitizer --tool racecheck --kernel-name kns=opk_ce_fwd_stash "$S" "$C"
pack
