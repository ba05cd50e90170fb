#!/usr/bin/env bash
# Twenty-seventh session, call 5. Variant "bulk" (the working tree over 597ca64): rms_norm's
# fp32 stash backward of exact rows of 8192 (opk_rms_bwd_stash_f32_s2_exact) fills its ring
# by the Tensor Memory Accelerator (call 4: 1.3-1.5 % in the harness, six runs each way).
# A/B of the fp32 norm backwards alternating twice; the norm tests and conformance on the
# variant; memcheck and racecheck of the bulk kernel on the stash test case.
# Carry build-check (= 597ca64), build-var. About 250 s.
. bench/device_call.sh r5
dc_variants
dc_ab_rounds bwd 'bulk' norm_backward f32 2
dc_ab_rounds fb 'bulk' 'rms_norm (fwd' f32 1
dc_tests vbulk "ops: layer_norm*,ops: rms_norm*,ops: norm*" bulk
VP=$PWD/var/vbulk/libopkit_vendor_cuda.so
t bulk-memcheck timeout 200 env OPKIT_VENDOR_PATH=$VP compute-sanitizer --tool memcheck --error-exitcode 1 \
    --kernel-name kns=_bwd_stash_ build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
t bulk-racecheck timeout 200 env OPKIT_VENDOR_PATH=$VP compute-sanitizer --tool racecheck --error-exitcode 1 \
    --kernel-name kns=stash_f32_s2_exact build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
t bulk-ran timeout 120 env OPKIT_VENDOR_PATH=$VP ncu --clock-control none --metrics gpu__time_duration.sum \
    -k regex:stash_f32_s2_exact build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
pack
cat $R/times.txt
cat $R/ab-bwd.txt $R/ab-fb.txt
tail -3 $R/vbulk-tests.txt $R/vbulk-tests-rocm.txt
tail -1 $R/vbulk-conformance.txt $R/vbulk-conformance-rocm.txt
tail -4 $R/bulk-memcheck.txt $R/bulk-racecheck.txt
grep -c 'opk_rms_bwd_stash_f32_s2_exact' $R/bulk-ran.txt
