#!/usr/bin/env bash
# The forty-second session, call 3.
#  1. vr2 / vr1 = bench/experiments/softmax-bwd-block-row.patch, OPK_EXP_SOFTMAX_BWD_ROW=2 / 1:
#     2-byte softmax backward rows of 16384 one row a block with a block for every row (no
#     row walk), the raw packs of dy and y kept across the row's barrier: 512 x 4 packs built
#     for 1024 resident threads (63 registers, no spills; Liger-Kernel's one program a row of
#     16 warps, 49 registers, two blocks an SM) and 1024 x 2 built for 2048 (32 registers,
#     36 bytes of spills). Against HEAD's wide kernel (128 registers, 256 x 8, two blocks an
#     SM), the row where the bf16 softmax backward trails Liger 0.98x (4096x16384). A/B first;
#     then vr2's softmax cases on both vendors and both conformance runs, so that a landing
#     whose kernels' SASS equals vr2's has its checks.
#  2. Two of the forty-first session's prepared breakdowns (events and CUPTI kernels of the
#     same calls): the bf16 norm forwards and the bf16 softmax forward.
# Builds: bench/prepare_device_builds.sh check; variant r2 (with rocm), r1 (ROCM=0); pack.
# Carry build-var, .whl.
. bench/device_call.sh r3
dc_variants
dc_ab_rounds r2 r2 softmax_backward bf16 3
dc_ab_rounds r1 r1 softmax_backward bf16 2
dc_tests r2 "*softmax*" r2
dc_liger
dc_breakdown kb-softmax-fwd-bf16 --calls 30 --ops softmax_forward,softmax_backward --dtypes bf16
dc_breakdown kb-norm-fwd-bf16 --calls 30 --ops rms_norm_forward,layer_norm_forward --dtypes bf16
cat $R/times.txt $R/ab-r2.txt $R/ab-r1.txt
tail -n 3 $R/r2-*.txt
grep -h "same calls\|: call" $R/kb-*.txt
