#!/usr/bin/env bash
# The forty-third session, call 1 (prepared in the forty-second session as
# prepared-next-call-1.sh). The whole GPU check on HEAD (16225e4: f6a61d1's code, 5218f5b's
# kernels — 4ad35ef's, checked whole in the forty-second session's call 1, plus
# opk_softmax_bwd_block_row_{f16,bf16}_g512x4). 540 s parts, in a call of their own.
# Builds: bench/prepare_device_builds.sh check; bench/prepare_device_builds.sh pack.
# Carry build-var (build-check travels as build-var/check.tar.xz).
. bench/device_call.sh r1
cat build-check/HEAD.txt
dc_check 540
cat $R/times.txt
pack
