#!/usr/bin/env bash
# The fifty-first session's call 3: the dense half-pack element-wise kernel straight-line
# (one access a thread, no loop, no alignment flags read: the host takes the general kernel
# for misaligned views), and the bf16/f16 geglu(tanh) backward moved to it. Call 2's
# elementwise_layouts.cu had the library's looped 8-byte body at 1.010 of the library's time
# on the bf16 geglu(tanh) backward where a straight-line 8-byte kernel took 0.995-0.997.
#  1. the variant's element-wise test cases on cuda and on rocm over HIP-over-CUDA, and
#     conformance of both;
#  2. A/B three rounds against HEAD's vendor on swiglu and geglu, both dtypes;
#  3. the peers (five rounds) on swiglu and geglu through the variant's vendor, bf16 then f32.
# Builds: build-check from bench/prepare_device_builds.sh check (HEAD 1cf238a, whose vendors
# equal 145e50c's); then
#   OPKIT_PREPARE_RESTORE_BUILD=0 bench/prepare_device_builds.sh variant s8 \
#     bench/experiments/ew-dense-half-straight.patch
#   bench/prepare_device_builds.sh pack
# Carry build-var and .whl.
. bench/device_call.sh r3
cat build-check/HEAD.txt
dc_variants
cat var/vs8/VARIANT.txt
dc_tests s8 "*swiglu*,*axpy*" s8
tail -2 $R/s8-tests.txt $R/s8-tests-rocm.txt $R/s8-conformance.txt $R/s8-conformance-rocm.txt
pack
dc_ab_rounds ew s8 swiglu,geglu bf16,f32 3
cat $R/ab-ew.txt
pack
dc_liger
export OPKIT_VENDOR_PATH=$PWD/var/vs8/libopkit_vendor_cuda.so
dc_compare gated-bf16 --ops swiglu,geglu --dtypes bf16 --rounds 5
dc_compare gated-f32 --ops swiglu,geglu --dtypes f32 --rounds 5
unset OPKIT_VENDOR_PATH
cat $R/times.txt
pack
