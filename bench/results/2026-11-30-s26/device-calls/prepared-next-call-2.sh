#!/usr/bin/env bash
# Prepared in the twenty-sixth session for the next one (not run). Question: at 4096x16384
# bf16 the layer_norm forward reaches 0.876 of copy where rms_norm's reaches 0.914 (the
# twenty-fourth session's peer run), both fixed-group kernels of 512 threads holding the
# row in registers. layer_norm reads a bias pack a pack and writes a mean; one reduction a
# row instead of two did not help (the nineteenth and twenty-sixth sessions). What do their
# profiles differ in: issue slots, stall reasons, the loads of the weight and bias packs
# (L1 hits), the bytes over the crossbar? Nsight Compute --set full of both, their details
# page, and the byte table.
# Carry build-check (any build with HEAD's vendors). About 90 s.
. bench/device_call.sh r2
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
