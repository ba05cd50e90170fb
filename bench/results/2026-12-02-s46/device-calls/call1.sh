#!/usr/bin/env bash
# Forty-sixth session, call 1.
# 1. bench/experiments/norm_backward_red.cu (built on the build VM, carried in
#    build-var/exp/): the persistent one-row register kernel with its row a __noinline__
#    function (no spill) beside the inlined form (spills 84-116 bytes), the block-a-row
#    kernel and the library's stash kernel, bf16 rms_norm backward 8192x16384; then the
#    same binary under Nsight Compute, the first launch of each of those kernels.
# 2. The forty-fifth session's call 5, lost when its machine was taken back: every op
#    against the peers on the same kernels (build-check of this commit; the vendors
#    byte-identical to 23dfc0c's), five rounds a dtype, with gpu_compare.py's "copy"
#    implementation (a device copy of each case's own bytes in the same rounds).
# Builds: bench/prepare_device_builds.sh check; pack; the experiment's binary in
# build-var/exp/. Carry build-var, .whl.
. bench/device_call.sh r1
cat build-check/HEAD.txt
cp build-var/exp/ptxas_red.txt $R/
t red timeout 120 build-var/exp/norm_backward_red
t ncu-red timeout 150 ncu --clock-control none --kernel-name-base mangled \
    --kernel-id '::regex:rms_bwd_persistentILi256ELi8ELi[01]ELb[01]|opk_rms_bwd_stash_bf16_s2_exact|rms_bwd_rowsILi256ELi8ELi1ELi0:1' \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis build-var/exp/norm_backward_red
pack
dc_liger
export TORCH_LOGS=recompiles  # a recompile would time Dynamo's dynamic-size kernel
dc_compare rounds-bf16 --dtypes bf16 --rounds 5
dc_compare rounds-f32 --dtypes f32 --rounds 5
cat $R/times.txt $R/red.txt
grep -E "^  [a-z_]|Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Local" $R/ncu-red.txt | head -80
for n in rounds-bf16 rounds-f32; do [ -f $R/$n.json ] && python3 bench/perf_table.py --summary $R/$n.json; done
pack
