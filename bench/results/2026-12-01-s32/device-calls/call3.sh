#!/usr/bin/env bash
# Where opkit's output lies relative to its inputs, against torch.compile's own output
# (bench/placement_probe.py): rope forward f32 / bf16, the bf16 softmax backward at
# 32768x4096, the bf16 embedding forward. Carry build-check.
. bench/device_call.sh r3
t placement timeout 300 env PYTHONPATH=$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor \
    OPKIT_LIBRARY=$DC_LIB python3 bench/placement_probe.py
pack
cat $R/times.txt $R/placement.txt
