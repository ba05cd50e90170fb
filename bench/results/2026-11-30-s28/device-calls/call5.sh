#!/usr/bin/env bash
# Twenty-eighth session, call 5 (the last 285 s). Carry build-check (7c9f129's build: the
# register-sum backwards ask L2 for the rows 1 MB ahead), build-var:
#   vs1 / vs2  bench/experiments/norm-split-l2-ahead.patch at 1 / 2 MB: the fp32 split
#              stash kernels on a4e0a6d (rows of 16384: fp32 layer_norm backward 0.89, rms_norm 0.90 of
#              copy) ask L2 for their part of x's and dy's row that far ahead of the row
#              their ring requests;
#   v0         a4e0a6d (7c9f129 plus the BulkRowRing refactor, which measured equal) without the register-sum kernels' rows ahead, for Nsight Compute:
#              what the 1 MB prefetch changed in opk_ln_bwd_regs_f32 at 8192x8192 (bytes
#              from DRAM, L2 hit rate, time).
# About 170 s.
. bench/device_call.sh r6
dc_variants
for i in 1 2; do
  for v in base s1 s2; do dc_ab bwd-$v-$i $v norm_backward f32; pack; done
done
for v in s1 s2; do python3 bench/ab_table.py $R bwd-base bwd-$v > $R/ab-bwd-$v.txt 2>&1; done
pack
M=$DC_NCU_BYTES,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__warps_eligible.avg.per_cycle_active
for v in base 0; do
  vp=; [ $v != base ] && vp=$PWD/var/v$v/libopkit_vendor_cuda.so
  t ncu-regs-$v timeout 60 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$vp \
    ncu --clock-control none --metrics $M -k regex:opk_ln_bwd_regs_f32 \
    python3 bench/ncu_ops.py --ops norms --dtype f32 --row-shapes 8192x8192
  pack
done
cat $R/times.txt $R/ab-*.txt
for v in base 0; do grep -E 'opk_ln_bwd_regs|bytes|hit_rate|duration|throughput|eligible' $R/ncu-regs-$v.txt | head -14; done
