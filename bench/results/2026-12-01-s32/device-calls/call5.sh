#!/usr/bin/env bash
# bench/placement_probe.py on the rows 0.98-0.996x a peer in the standing table: the bf16
# rms_norm forward at 4096x16384 and softmax forward at 8192x8192 (Liger-Kernel), the bf16
# swiglu forward at 32768x4096 (torch.compile). Carry build-check, .whl.
. bench/device_call.sh r5
dc_liger
t placement timeout 300 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor \
    OPKIT_LIBRARY=$DC_LIB python3 bench/placement_probe.py --ops rms_fwd_bf16,softmax_fwd_bf16,swiglu_fwd_bf16
pack
cat $R/times.txt $R/placement.txt
