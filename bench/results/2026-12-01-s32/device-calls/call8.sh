#!/usr/bin/env bash
# Nsight Compute's full set on the three rows call 7 found short of their peer at every
# output placement (bench/placement_probe.py --profile: one opkit call and one peer call a
# case): the bf16 softmax backward at 4096x16384 (Liger), the fp32 layer_norm forward at
# 8192x8192 (Liger), the fp32 rms_norm forward at 32768x4096 (torch.compile); then
# bench/ncu_stall_table.py. Carry build-check, .whl. About 150 s.
. bench/device_call.sh r8
dc_liger
t ncu-gaps timeout 300 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor \
    OPKIT_LIBRARY=$DC_LIB ncu --profile-from-start off --clock-control none --set full --export /tmp/ncu-gaps \
    python3 bench/placement_probe.py --profile --ops softmax_bwd_wide_bf16,ln_fwd_f32,rms_fwd_compile_f32
t ncu-gaps-details ncu --import /tmp/ncu-gaps.ncu-rep --page details --print-details all
gzip -k $R/ncu-gaps-details.txt
t stall-table python3 bench/ncu_stall_table.py $R/ncu-gaps-details.txt
rm -f $R/ncu-gaps-details.txt
pack
cat $R/times.txt $R/stall-table.txt; tail -5 $R/ncu-gaps.txt
