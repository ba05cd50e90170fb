#!/usr/bin/env bash
# Prepared in the fortieth session for the next one (not run: the device time was spent).
# The whole GPU check on HEAD (09c0a72's twice kernels with their x loads ahead of the
# stores, or whatever HEAD's GPU code is then): call 4 of the fortieth session cut it short
# at a part limit of 430 s (the cuda and rocm test parts stopped in the cross-entropy stash
# case, every assertion reached passed). The rocm tests over HIP-over-CUDA took 392 s in
# call 2 and more than 430 s in call 4: give the parts 540 s, in a call of its own.
# Builds: bench/prepare_device_builds.sh check; bench/prepare_device_builds.sh pack.
# Carry build-var (build-check travels as build-var/check.tar.xz).
. bench/device_call.sh r1
cat build-check/HEAD.txt
dc_check 540
cat $R/times.txt
# Then (another call, with .whl): every op against the peers in five rounds on HEAD (the
# standing table's rms_norm forward rows are from e385d0a and earlier), and
# bench/kernel_breakdown.py on opkit's and Inductor's fp32 rms_norm forward at 8192x8192
# and 4096x16384 (Nsight Compute put the kernels within 0.05-0.5 % of each other, the
# timed calls 0.4-1.4 % apart). Still owed from earlier sessions: the multi-GPU suites
# (kind nvidia-h200-x2, not lent in the thirty-sixth to fortieth sessions):
# bench/results/2026-12-01-s36/device-calls/prepared-next-call-1.sh.
