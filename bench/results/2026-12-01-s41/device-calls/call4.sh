#!/usr/bin/env bash
# Call 4 of the forty-first session: the device time left (521 s) does not hold the whole
# check (491 s in call 1, plus the machine's start), so the candidate ab86d74 (call 3 won its
# gate: old / candidate 1.007 at fp32 8192x8192) gets the checks of what it changed: the
# rms_norm test cases on cuda and on rocm over the HIP-over-CUDA shim side by side, then
# opkit-conformance on both vendors (dc_tests). HEAD's other GPU code is 09c0a72's, whose
# whole check passed in call 1. Then kernel_breakdown --behind-spin on more of the rows
# short of a peer (softmax, embedding), as call 3 did for rms_norm and the gated forwards.
# Builds: as call 3 (build-check = ab86d74). Carry build-var, .whl.
. bench/device_call.sh r4
cat build-check/HEAD.txt
dc_liger
dc_tests cand "ops: rms_norm*"
breakdown() {  # NAME ARGS...
    local name=$1
    shift
    t "$name" timeout 100 env PYTHONPATH="/tmp/site:$PWD/python" TRITON_CACHE_DIR="$R/triton" \
        TORCHINDUCTOR_CACHE_DIR="$R/inductor" OPKIT_LIBRARY="$DC_LIB" \
        python3 bench/kernel_breakdown.py --impls opkit,compile,liger --behind-spin "$@"
    pack
}
breakdown kb-softmax --ops softmax_forward,softmax_backward --dtypes bf16 --shapes 8192x8192,4096x16384
breakdown kb-embedding --ops embedding_forward --dtypes bf16,f32
cat $R/times.txt
tail -n 3 $R/cand-*.txt
grep -h "behind\|: call" $R/kb-*.txt
