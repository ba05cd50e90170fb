#!/usr/bin/env bash
# Prepared in the twenty-first session for the next one: vsum (bench/experiments/
# ce-loss-sum-batched.patch on bbf5f8e: the cross-entropy loss sum loads eight values a
# thread at once and reduces through warp butterflies), cuda and rocm vendors in
# build-var/var.tar.xz. (a) its cross-entropy test cases on cuda, and on rocm over the
# HIP-over-CUDA shim, side by side; conformance of both; (b) the cross-entropy ops, bf16
# and f32, twice alternating against build-check's own vendor (bbf5f8e), each run packed
# at once; (c) bench/kernel_breakdown.py of vsum's bf16 cross-entropy (the loss sum was
# 5.3-6.7 us before). Carry build-check and build-var/var.tar.xz. About 220 s.
. bench/device_call.sh r2
dc_variants
V=$PWD/var/vsum/libopkit_vendor_cuda.so
dc_tests vsum "ops: cross_entropy*" sum
pack
dc_ab_rounds ce sum cross_entropy bf16,f32 2
t kb-ce timeout 100 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$V python3 bench/kernel_breakdown.py --dtypes bf16 --ops cross_entropy
pack
cat $R/times.txt $R/ab-ce.txt
grep -h "call \|loss_sum" $R/kb-ce.txt
