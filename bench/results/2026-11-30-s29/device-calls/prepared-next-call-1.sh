#!/usr/bin/env bash
# Prepared in the twenty-ninth session for the next one (not run: its device time was
# spent). Call 6 (../r6) measured layer_norm's fp32 split stash kernels asking L2 for their
# half-rows 512 KB ahead at 0.982 of their time (fp32 layer_norm backward 4096x16384, three
# rounds; 256 KB 0.996); fp32 layer_norm backward there is 0.8998 of copy, so this would
# take it past 0.90. The landing form is bench/experiments/ln-split-ahead-512k.patch
# (kLnSplitAheadBytes; built on cd8c32c its cuda vendor was byte-identical to call 6's
# vln512). Before it lands: apply it, build, put its vendors in build-var as vln512
# (var.tar.xz), then this call: the norm stash backwards' test case plain and with
# memcheck over layer_norm's split kernels, and three A/B rounds again. Carry build-check
# (HEAD's build without the patch), build-var. About 200 s.
. bench/device_call.sh r1
dc_variants
vp=$PWD/var/vln512/libopkit_vendor_cuda.so
t ln512-stash-tests timeout 60 env OPKIT_VENDOR_PATH=$vp build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
pack
t ln512-k2-memcheck timeout 90 env OPKIT_VENDOR_PATH=$vp compute-sanitizer --tool memcheck --error-exitcode 1 --kernel-name kns=_ln_bwd_stash_f32_k2 build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
pack
dc_ab_rounds bwd ln512 norm_backward f32 3
cat $R/times.txt $R/ab-bwd.txt; tail -n 3 $R/ln512-*.txt
