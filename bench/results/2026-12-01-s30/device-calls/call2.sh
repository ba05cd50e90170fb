#!/usr/bin/env bash
# Thirtieth session, call 2, on build-check (aeee5ba's build; its bf16 kernels are HEAD's).
# 1. bench/row_sweep.py: does the busiest persistent block's rows set the norm backwards'
#    time? bf16, the row ops at rows of 16384 / 8192 / 4096 around the shapes of
#    gpu_compare (3960 = 30 x 132, 4224 = 32 x 132; 8184 = 62 x 132, 8316 = 63 x 132;
#    32736 = 124 x 264, 33000 = 125 x 264).
# 2. vk2 = bench/experiments/norm-bwd-bf16-split.patch: bf16 rows of 16384 split over
#    clusters of two blocks (512 threads of two packs each, 66 clusters: 62 rows a
#    cluster instead of 31 a block), OPK_EXP_SPLIT16=a with the fp32 split kernels' L1
#    copies, L2 rows ahead and whole stores, =g without. The stash test case with each,
#    three A/B rounds each, and the sweep at rows of 16384 with each.
# Carry build-check, build-var. About 330 s.
. bench/device_call.sh r2
dc_variants
sweep() {  # NAME COLS ROWS BLOCKS [vendor path]
  t "sweep-$1" timeout 120 env PYTHONPATH="$PWD/python" OPKIT_LIBRARY="$DC_LIB" OPKIT_VENDOR_PATH="${5:-}" \
    python3 bench/row_sweep.py --cols "$2" --rows "$3" --blocks "$4" \
    --ops rms_norm_backward,layer_norm_backward,rms_norm_forward,layer_norm_forward,softmax_forward,softmax_backward \
    --out "$R/sweep-$1.json"
  pack
}
sweep base-16384 16384 3960,4096,4224 132
sweep base-8192 8192 8184,8192,8316 132
sweep base-4096 4096 32736,32768,33000 264
vp=$PWD/var/vk2/libopkit_vendor_cuda.so
for m in a g; do
  export OPK_EXP_SPLIT16=$m
  t k2$m-stash-tests timeout 150 env OPKIT_VENDOR_PATH=$vp build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
  pack
  sweep k2$m-16384 16384 3960,4096,4224 66 "$vp"
  dc_ab_rounds k2$m k2 norm_backward bf16 3
done
unset OPK_EXP_SPLIT16
cat $R/times.txt $R/ab-k2*.txt; tail -n 3 $R/k2*-stash-tests.txt
cat $R/sweep-*.txt
