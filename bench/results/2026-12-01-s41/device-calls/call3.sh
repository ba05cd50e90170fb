#!/usr/bin/env bash
# Call 3 of the forty-first session. build-check = the candidate that lands rms_norm's fp32
# rows of 8192 read twice at 512 x 4 with Inductor's L1 hints (call 2's w2, SASS identical:
# every sm_90 kernel of norms.fatbin matches the variant's); variant vold = the previous
# commit's vendors (cuda only).
#  1. A/B, three rounds, the candidate against the old vendors on the fp32 rms_norm forward,
#     and the gate (dc_ab_won: old / candidate above 1.003 at 8192x8192).
#  2. bench/kernel_breakdown.py --behind-spin on the fp32 rms_norm forward and the bf16
#     gated forwards: call 2's breakdown put opkit's time beyond its kernels 0.5-1 us above
#     Inductor's on most rows, but its kernel times were of calls back to back; these are of
#     the calls queued behind the spin, as timed.
#  3. Every op against the peers in five alternating rounds, bf16 then f32 (the standing
#     table's source, as s39 call 4), on the candidate.
# Builds: prepare_device_builds.sh check; git diff HEAD HEAD~1 -- vendors > /tmp/old.patch;
# OPKIT_PREPARE_ROCM=0 prepare_device_builds.sh variant old /tmp/old.patch; pack.
# Carry build-var, .whl.
. bench/device_call.sh r3
cat build-check/HEAD.txt
dc_variants
dc_liger
dc_ab_rounds old old rms_norm_forward f32 3
dc_ab_won old rms_norm_forward 8192x8192 && echo "gate: the candidate won" || echo "gate: NOT won"
breakdown() {  # NAME ARGS...
    local name=$1
    shift
    t "$name" timeout 120 env PYTHONPATH="/tmp/site:$PWD/python" TRITON_CACHE_DIR="$R/triton" \
        TORCHINDUCTOR_CACHE_DIR="$R/inductor" OPKIT_LIBRARY="$DC_LIB" \
        python3 bench/kernel_breakdown.py --impls opkit,compile,liger --behind-spin "$@"
    pack
}
breakdown kb-rms --ops rms_norm_forward --dtypes f32
breakdown kb-gated --ops swiglu_forward,geglu_forward --dtypes bf16
run_compare() {  # NAME LIMIT ARGS...
    local name=$1 limit=$2
    shift 2
    t "$name" timeout "$limit" env TORCH_LOGS=recompiles PYTHONPATH=/tmp/site:$PWD/python \
        TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB \
        python3 bench/gpu_compare.py "$@" --out "$R/$name.json"
    pack
}
run_compare rounds-bf16 $(((560 - SECONDS) / 2)) --dtypes bf16 --rounds 5
run_compare rounds-f32 $((565 - SECONDS)) --dtypes f32 --rounds 5
cat $R/times.txt $R/ab-old.txt
grep -h "behind\|: call" $R/kb-*.txt
for n in rounds-bf16 rounds-f32; do [ -f $R/$n.json ] && python3 bench/perf_table.py --summary $R/$n.json; done
