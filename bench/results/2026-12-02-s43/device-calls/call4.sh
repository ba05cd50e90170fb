#!/usr/bin/env bash
# The forty-third session, call 4. The whole GPU check on the landing of rms_norm's 2-byte
# rows of 8192 one block a row (opk_rms_fwd_twice_block_row_{f16,bf16}_g512x2, whose SASS is
# call 3's measured variant's instruction for instruction; every other norms kernel's SASS
# is HEAD's, and softmax's block-a-row launch now goes through FixedKernel::block_row).
# Call 3's dc_tests did not run (the variant had been built without its rocm vendor), so
# this check is the landed kernels' first test run on the GPU. 540 s parts.
# Builds: bench/prepare_device_builds.sh check; pack. Carry build-var.
. bench/device_call.sh r4
cat build-check/HEAD.txt
dc_check 540
cat $R/times.txt
pack
