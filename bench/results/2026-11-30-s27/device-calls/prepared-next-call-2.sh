#!/usr/bin/env bash
# Prepared in the twenty-seventh session for the next one (not run). Question: the fp32
# layer_norm backward is 0.89 of copy at 8192x8192 (opk_ln_bwd_regs_f32, the register-sum
# kernel; its stash kernel trails it even with the bulk ring) and at 4096x16384
# (opk_ln_bwd_stash_f32_k2_exact, split over a cluster of two); fp32 rms_norm's split
# kernel 0.899 at 4096x16384. What do their profiles say: issue slots, stall reasons,
# bytes in flight, the column sums' share? Nsight Compute --set full of the fp32 norm
# backwards at 8192x8192 and 4096x16384 (and their column sums), their details page, and
# the byte table. Carry build-check (any build with HEAD's vendors). About 120 s.
. bench/device_call.sh r2
t ncu-bwd32 timeout 240 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB ncu --clock-control none --set full \
    --import-source no -k 'regex:opk_(ln|rms)_bwd|opk_column_sum' -o $R/bwd32 \
    python3 bench/ncu_ops.py --ops norms --dtype f32 --row-shapes 8192x8192,4096x16384
t ncu-bwd32-details timeout 60 ncu -i $R/bwd32.ncu-rep --page details --print-details all
rm -f $R/bwd32.ncu-rep
pack
cat $R/times.txt
grep -E '^  opk_|Duration|Issue Slots Busy|No Eligible|Achieved Occupancy|Registers Per|DRAM Throughput|Stall Long|Stall Barrier|Stall Not Sel' $R/ncu-bwd32-details.txt | head -80
