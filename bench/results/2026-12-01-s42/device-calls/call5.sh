#!/usr/bin/env bash
# The forty-second session, call 5 (about 225 s of device time left, the machine's start
# about 120 of them): the landed block-a-row softmax backward (5218f5b) against the peers at
# the one shape it takes, bf16 4096x16384: softmax forward, backward and fwd+bwd, five
# alternating rounds, torch.compile static and Liger-Kernel (as the standing table's run).
# Builds: bench/prepare_device_builds.sh check; pack. Carry build-var, .whl.
. bench/device_call.sh r5
cat build-check/HEAD.txt
dc_liger
t sm16k timeout 85 env TORCH_LOGS=recompiles PYTHONPATH=/tmp/site:$PWD/python \
    TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB \
    python3 bench/gpu_compare.py --ops softmax --shapes 4096x16384 --dtypes bf16 --rounds 5 --out $R/sm16k.json
pack
cat $R/times.txt
python3 bench/perf_table.py $R/sm16k.json 2>&1 | tail -12
