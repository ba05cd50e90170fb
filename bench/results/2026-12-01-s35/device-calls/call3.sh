#!/usr/bin/env bash
# Thirty-fifth session, call 3: Nsight Compute's full set on the four gaps to a peer that
# call 2's rounds found short in every round and that no session had profiled: the fp32
# and bf16 rope forwards (torch.compile, 4x4096x32x128), the bf16 softmax backward at
# 32768x4096 (torch.compile), the bf16 embedding forward (torch.compile); one opkit call
# and one peer call each (bench/placement_probe.py --profile), then
# bench/ncu_stall_table.py, as the thirty-second session's call 8. Carry build-check (less
# its rocm vendor), .whl. About 150 s.
. bench/device_call.sh r3
dc_liger
t ncu-gaps timeout 400 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor \
    OPKIT_LIBRARY=$DC_LIB ncu --profile-from-start off --clock-control none --set full --export /tmp/ncu-gaps \
    python3 bench/placement_probe.py --profile --ops rope_f32,rope_bf16,softmax_bwd_bf16,embedding_bf16
t ncu-gaps-details ncu --import /tmp/ncu-gaps.ncu-rep --page details --print-details all
gzip -k $R/ncu-gaps-details.txt
t stall-table python3 bench/ncu_stall_table.py $R/ncu-gaps-details.txt
rm -f $R/ncu-gaps-details.txt
pack
cat $R/times.txt $R/stall-table.txt; tail -5 $R/ncu-gaps.txt
