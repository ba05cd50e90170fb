#!/usr/bin/env bash
# bench/placement_probe.py on three more rows short of a peer in the standing table: the
# bf16 softmax backward at 4096x16384 (0.97x Liger), the fp32 layer_norm forward at 8192x8192
# (0.97x Liger), the fp32 rms_norm forward at 32768x4096 (0.98x compile). Carry build-check, .whl.
. bench/device_call.sh r7
dc_liger
t placement timeout 300 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor \
    OPKIT_LIBRARY=$DC_LIB python3 bench/placement_probe.py --ops softmax_bwd_wide_bf16,ln_fwd_f32,rms_fwd_compile_f32
pack
cat $R/times.txt $R/placement.txt
