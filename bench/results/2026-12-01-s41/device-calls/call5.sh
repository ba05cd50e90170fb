#!/usr/bin/env bash
# Call 5 of the forty-first session (the device time's last 330 s): calls 3 and 4 took the
# timed calls' events and the profiled kernels from two runs (their "beyond lead and span"
# went below zero for Triton's tanh kernels: the runs' kernels differ). kernel_breakdown.py
# --behind-spin now records the events around each profiled call: the events' time beyond
# the kernels' span in the same calls, for opkit and its peers, on rows short of a peer.
# build-check = ab86d74 (bench/kernel_breakdown.py travels with the tree). Carry build-var, .whl.
. bench/device_call.sh r5
cat build-check/HEAD.txt
dc_liger
breakdown() {  # NAME ARGS...
    local name=$1
    shift
    t "$name" timeout 80 env PYTHONPATH="/tmp/site:$PWD/python" TRITON_CACHE_DIR="$R/triton" \
        TORCHINDUCTOR_CACHE_DIR="$R/inductor" OPKIT_LIBRARY="$DC_LIB" \
        python3 bench/kernel_breakdown.py --impls opkit,compile,liger --behind-spin --calls 30 "$@"
    pack
}
breakdown kb-rms --ops rms_norm_forward --dtypes f32
breakdown kb-swiglu --ops swiglu_forward --dtypes bf16
breakdown kb-softmax --ops softmax_backward --dtypes bf16 --shapes 8192x8192,32768x4096
breakdown kb-embedding --ops embedding_forward --dtypes f32
cat $R/times.txt
grep -h "same calls\|: call" $R/kb-*.txt
