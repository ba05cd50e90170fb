#!/usr/bin/env bash
# Prepared in the fortieth session (not run). After prepared-next-call-1.sh (the whole
# check on HEAD). Three questions about the fp32 rms_norm forward's last 1 % to Inductor:
#  1. bench/experiments/rms-fwd-twice-f32-8k.patch: fp32 rows of 8192 read twice at 512 x 4
#     now that the second read's x loads run ahead of the stores (w1), and with Inductor's L1
#     hints on that kernel alone (w2; Inductor's kernel had 46 % L1 hits there, the fixed
#     kernel 33 %). sm_90 30 registers, no spills.
#  2. bench/kernel_breakdown.py (CUPTI, the benchmark's conditions) on opkit's, Inductor's and
#     Liger-Kernel's fp32 rms_norm forward: whether the calls' 0.4-1.4 % is in the kernels
#     (Nsight Compute, caches flushed, put them within 0.05-0.5 %) or beyond them.
#  3. The same for the bf16 swiglu / geglu forwards (0.99x compile in the standing table).
# About 300 s with the machine's start. Builds:
#   bench/prepare_device_builds.sh check
#   OPKIT_PREPARE_ROCM=0 OPKIT_PREPARE_RESTORE_BUILD=0 bench/prepare_device_builds.sh variant w1 \
#     bench/experiments/rms-fwd-twice-f32-8k.patch OPK_EXP_RMS_TWICE_F32_8K=1
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant w2 \
#     bench/experiments/rms-fwd-twice-f32-8k.patch OPK_EXP_RMS_TWICE_F32_8K=2
#   bench/prepare_device_builds.sh pack
# Carry build-var, .whl.
. bench/device_call.sh r2
dc_variants
dc_liger
dc_cuda_tests w2-rms "*rms_norm*" w2
dc_ab_rounds w1 w1 rms_norm_forward f32 3
dc_ab_rounds w2 w2 rms_norm_forward f32 3
breakdown() {  # NAME ARGS...
    local name=$1
    shift
    t "$name" timeout 150 env PYTHONPATH="/tmp/site:$PWD/python" TRITON_CACHE_DIR="$R/triton" \
        TORCHINDUCTOR_CACHE_DIR="$R/inductor" OPKIT_LIBRARY="$DC_LIB" \
        python3 bench/kernel_breakdown.py --impls opkit,compile,liger "$@"
    pack
}
breakdown kb-rms --ops rms_norm_forward --dtypes f32
breakdown kb-gated --ops swiglu_forward,geglu_forward --dtypes bf16
cat $R/times.txt $R/ab-*.txt $R/kb-*.txt; tail -n 3 $R/w2-rms.txt
