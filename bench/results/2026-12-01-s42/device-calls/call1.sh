#!/usr/bin/env bash
# The forty-second session, call 1 (prepared in the forty-first session).
# The whole GPU check on HEAD (ab86d74's GPU code: 09c0a72's, checked whole in the
# forty-first session's call 1, plus opk_rms_fwd_twice_f32_g512x4 and its host pick, whose
# rms_norm cases on both vendors and both conformance runs passed in call 4). The parts took
# up to 491 s in call 1: 540 s parts, in a call of their own.
# Builds: bench/prepare_device_builds.sh check; bench/prepare_device_builds.sh pack.
# Carry build-var (build-check travels as build-var/check.tar.xz).
. bench/device_call.sh r1
cat build-check/HEAD.txt
dc_check 540
cat $R/times.txt
# Still owed from earlier sessions: the multi-GPU suites (kind nvidia-h200-x2, not lent in
# the thirty-sixth to forty-first sessions): bench/results/2026-12-01-s36/device-calls/prepared-next-call-1.sh.
