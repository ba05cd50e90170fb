#!/usr/bin/env bash
# The forty-fourth session, call 3. Call 2's vmdim (rows-view-max-dims.patch,
# OPK_EXP_MAX_DIMS=2: every RowsView 144 -> 48 bytes) read 0.987-0.995 on the bf16 softmax
# forwards and 0.991 on the bf16 rms_norm forward at 4096x16384, though the kernels those
# shapes run have the same SASS in both builds but for their parameters' constant-bank
# offsets, and launch_param_bytes.cu showed 32 -> 1024 bytes of parameters costing a lone
# kernel 0.03-0.06 us. Where does the time go?
# 1. kernel_breakdown.py --behind-spin, opkit alone, base then vmdim twice: the kernel's own
#    CUPTI time against the events' time outside it.
# 2. vmdim A/B on the ops call 2 did not cover (which would a landing form reach?).
# Builds: as call 2 (build-var: check + vmdim). Carry build-var.
. bench/device_call.sh r3
dc_variants
bd() {
    local name=$1 vp=$2
    shift 2
    t "$name" timeout 150 env PYTHONPATH="$PWD/python" OPKIT_LIBRARY="$DC_LIB" OPKIT_VENDOR_PATH="$vp" \
        python3 bench/kernel_breakdown.py --impls opkit --behind-spin --calls 50 --reps 50 "$@"
    pack
}
for i in 1 2; do
    bd bd-base-$i "" --ops softmax_forward,rms_norm_forward --dtypes bf16 --shapes 4096x16384,32768x4096
    bd bd-vmdim-$i "$PWD/var/vmdim/libopkit_vendor_cuda.so" --ops softmax_forward,rms_norm_forward --dtypes bf16 --shapes 4096x16384,32768x4096
done
dc_ab_rounds mdim2 mdim softmax_backward,layer_norm_forward,rms_norm_backward,layer_norm_backward,geglu_forward,swiglu_backward,geglu_backward,embedding_forward bf16 3
dc_ab_rounds mdim3 mdim softmax_forward,rms_norm_forward,layer_norm_forward,softmax_backward,swiglu_forward,embedding_forward f32 2
cat $R/times.txt; grep -h "call\|behind" $R/bd-*.txt; cat $R/ab-mdim2.txt $R/ab-mdim3.txt
pack
