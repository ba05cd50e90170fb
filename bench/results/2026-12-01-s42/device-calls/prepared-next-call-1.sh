#!/usr/bin/env bash
# Prepared in the forty-second session for the next one (not run: the device time was
# spent). The whole GPU check on HEAD: 5218f5b's kernels (4ad35ef's, checked whole in the
# forty-second session's call 1, plus opk_softmax_bwd_block_row_{f16,bf16}_g512x4, whose
# softmax cases on both vendors and both conformance runs passed in calls 3-4 as the
# SASS-equal variants). The parts took up to 491 s (forty-first session) and 367 s
# (forty-second): 540 s parts, in a call of their own.
# Builds: bench/prepare_device_builds.sh check; bench/prepare_device_builds.sh pack.
# Carry build-var (build-check travels as build-var/check.tar.xz).
. bench/device_call.sh r1
cat build-check/HEAD.txt
dc_check 540
cat $R/times.txt
# Still owed from earlier sessions: the multi-GPU suites (kind nvidia-h200-x2, not lent in
# the thirty-sixth to forty-second sessions): bench/results/2026-12-01-s36/device-calls/prepared-next-call-1.sh.
