#!/usr/bin/env bash
# Twenty-eighth session, call 1: the twenty-seventh session's two prepared calls in one
# (prepared-next-call-1.sh then prepared-next-call-2.sh of bench/results/2026-11-30-s27/
# device-calls; their headers say why). Carry build-check (HEAD b54f5b1 vendors), build-var
# (the columns-ahead variant, built from that patch on the build VM).
. bench/device_call.sh r1
dc_variants
dc_ab_rounds fwd 'ahead' norm_forward bf16,f32 2
dc_tests vahead "ops: layer_norm*,ops: rms_norm*" ahead
pack
DC_ARCHIVE=r2; R2=$R; R=$(mktemp -d)
t ncu-bwd32 timeout 240 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB ncu --clock-control none --set full \
    --import-source no -k 'regex:opk_(ln|rms)_bwd|opk_column_sum' -o $R/bwd32 \
    python3 bench/ncu_ops.py --ops norms --dtype f32 --row-shapes 8192x8192,4096x16384
t ncu-bwd32-details timeout 60 ncu -i $R/bwd32.ncu-rep --page details --print-details all
rm -f $R/bwd32.ncu-rep
pack
cat $R2/times.txt $R/times.txt; cat $R2/ab-fwd.txt
grep -E '^  opk_|Duration|Issue Slots Busy|No Eligible|Achieved Occupancy|Registers Per|DRAM Throughput' $R/ncu-bwd32-details.txt | head -120
