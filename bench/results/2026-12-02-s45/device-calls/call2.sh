#!/usr/bin/env bash
# Forty-fourth session's prepared call 2, run as the forty-fifth's call 2 (sent within the idle
# window after call 1). Why was the bf16 softmax forward's kernel at 4096x16384 0.5 us
# shorter (CUPTI, 65.95 -> 65.4 us; A/B 0.987) under rows-view-max-dims.patch, whose SASS
# for it is HEAD's but for the parameters' constant-bank offsets (the forty-fourth
# session's calls 2-3), when the hot-first order (23dfc0c, call 4) did not give it? Nsight
# Compute's full set of that kernel (opk_softmax_fwd_fixed_bf16_g512) in both builds, three
# launches each: launch statistics, the instruction and constant-cache counters, stalls.
# Then what 23dfc0c's RowsView order costs the kernels whose spills it raised
# (opk_rms_bwd_long_{f16,bf16}: 8-16 more bytes of stack, 12-21 more loop accesses), which
# run only without the cluster kernels: voord = bench/experiments/rows-view-old-order.patch
# (the old RowsView order, the Args structs' as HEAD's), the 2-byte norm backwards with
# OPKIT_CUDA_CLUSTER_KERNELS=0, three rounds (ratio voord / HEAD: below 1, the old order
# faster there).
# Builds: bench/prepare_device_builds.sh check;
#   OPKIT_PREPARE_ROCM=0 OPKIT_PREPARE_RESTORE_BUILD=0 bench/prepare_device_builds.sh variant mdim \
#     bench/experiments/rows-view-max-dims.patch OPK_EXP_MAX_DIMS=2
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant oord \
#     bench/experiments/rows-view-old-order.patch
#   bench/prepare_device_builds.sh pack. Carry build-var.
. bench/device_call.sh r2
dc_variants
nc() {
    local name=$1 vp=$2
    t "$name" timeout 200 env PYTHONPATH="$PWD/python" OPKIT_LIBRARY="$DC_LIB" OPKIT_VENDOR_PATH="$vp" \
        ncu --set full --clock-control none -k regex:opk_softmax_fwd_fixed_bf16_g512 -c 3 --page details \
        python3 bench/ncu_ops.py --ops softmax --dtype bf16 --row-shapes 4096x16384
    pack
}
nc ncu-base ""
nc ncu-vmdim "$PWD/var/vmdim/libopkit_vendor_cuda.so"
dc_ab_rounds mdim mdim softmax_forward bf16 3
export OPKIT_CUDA_CLUSTER_KERNELS=0
dc_ab_rounds oord oord rms_norm_backward,layer_norm_backward bf16,f16 3
unset OPKIT_CUDA_CLUSTER_KERNELS
cat $R/times.txt $R/ab-mdim.txt $R/ab-oord.txt
pack
