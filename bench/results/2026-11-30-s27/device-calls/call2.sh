#!/usr/bin/env bash
# Twenty-seventh session, call 2. Call 1's profile: the bf16 layer_norm fixed forward
# (g512, 4096x16384) executed 660 instructions a warp and row against rms_norm's 489, 61.6 %
# issue slots busy: an FSEL an element for `+ (b ? bv : 0)`, and the weight and bias packs'
# alignment and bounds tests with their element-load fallbacks on every pack. Variant
# "cols" (the working tree): the bias tested once a pack; the forwards' exact bodies read
# the weight and bias as whole aligned packs (the host sends misaligned ones to the
# general kernels). A/B of both norm forwards, alternating twice; executed instructions
# of the fixed kernels (base and variant); the norm tests and conformance on the variant.
# Carry build-check (= 0c30f67 vendors, HEAD's), build-var. About 300 s.
. bench/device_call.sh r2
dc_variants
dc_ab_rounds fwd 'cols' norm_forward bf16,f32 2
for v in base cols; do
  vp=; [ $v != base ] && vp=$PWD/var/v$v/libopkit_vendor_cuda.so
  for dt in bf16 f32; do
    t ncu-inst-$v-$dt timeout 150 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$vp ncu --clock-control none \
        --metrics smsp__inst_executed.sum,sm__inst_executed_pipe_lsu.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
        -k 'regex:_fwd_(fixed|wide)' python3 bench/ncu_ops.py --ops norms --dtype $dt
  done
done
pack
dc_tests vcols "ops: layer_norm*,ops: rms_norm*" cols
pack
cat $R/times.txt
cat $R/ab-fwd.txt
for f in $R/ncu-inst-*; do echo "== $f"; grep -E '^  opk_|inst_executed.sum|issue_active|duration' $f; done
tail -3 $R/vcols-tests.txt $R/vcols-tests-rocm.txt; tail -4 $R/vcols-conformance.txt $R/vcols-conformance-rocm.txt
