#!/usr/bin/env bash
# Twenty-ninth session, call 6 (the device time left): layer_norm's fp32 split stash
# kernels asking L2 for their half-rows nearer ahead than the 1 / 2 MB that measured
# 1.008-1.013 (bench/experiments/ln-split-l2-ahead-near.patch with OPK_EXP_LN_SPLIT_AHEAD
# (512 << 10) and (256 << 10): 8 and 4 rows of 16384 floats). fp32 layer_norm backward
# 4096x16384 is 0.8998 of copy. Carry build-check (aeee5ba's build), build-var. About 150 s.
. bench/device_call.sh r6
dc_variants
for i in 1 2 3; do
  for v in base ln512 ln256; do dc_ab bwd-$v-$i $v norm_backward f32; pack; done
done
for v in ln512 ln256; do python3 bench/ab_table.py $R bwd-base bwd-$v > $R/ab-bwd-$v.txt 2>&1; done
pack
cat $R/times.txt $R/ab-bwd-*.txt
