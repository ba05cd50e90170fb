#!/usr/bin/env bash
# Twenty-seventh session, call 1: the twenty-sixth session's two prepared calls in one
# (prepared-next-call-1.sh and -2.sh of bench/results/2026-11-30-s26/device-calls).
# Carry build-check (= 0c30f67 vendors), build-var (the bulk-ring harness). About 200 s.
. bench/device_call.sh r1
t bulk timeout 300 build-var/norm_backward_stash_bulk
pack
cat $R/times.txt
cat $R/bulk.txt
t ncu-fwd timeout 200 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB ncu --clock-control none --set full \
    --import-source no -k 'regex:_fwd_fixed_bf16_g512' -o $R/fwd python3 bench/ncu_ops.py --ops norms --dtype bf16
t ncu-fwd-details timeout 60 ncu -i $R/fwd.ncu-rep --page details --print-details all
t ncu-fwd-source timeout 60 ncu -i $R/fwd.ncu-rep --page source --print-source sass --csv
rm -f $R/fwd.ncu-rep
dc_ncu_bytes ncu-fwd-bytes base '_fwd_fixed_bf16_g512' norms bf16
pack
cat $R/times.txt
python3 bench/ncu_bytes_table.py $R/ncu-fwd-bytes.txt
grep -E '^  opk_|Duration|Issue Slots Busy|Eligible Warps|No Eligible|Achieved Occupancy|Registers Per|L1/TEX Hit|Stall' $R/ncu-fwd-details.txt | head -60
