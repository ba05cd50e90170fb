#!/usr/bin/env bash
# The forty-second session, call 2: three experiments, A/B against HEAD's vendor.
#  1. vp2 = bench/experiments/softmax-bwd-packs.patch, OPK_EXP_SOFTMAX_BWD_PACKS=2 (prepared
#     in the forty-first session): the 2-byte softmax backward of rows of 8192 at 512 x 2
#     packs and of 16384 at 512 x 4 in the one-pack kernel's shape (Liger-Kernel's 16 warps
#     a row). Its softmax cases on both vendors and both conformance runs first.
#  2. ve1 / ve3 = bench/experiments/elementwise-block-shape.patch, OPK_EXP_EW_SHAPE=1 / 3:
#     the dense element-wise kernels launched at 128 threads a block (Inductor's pointwise
#     launch for these ops: 128 threads, one 16-byte pack each, no loop, 32-bit index;
#     bench/results/2026-12-01-s39/r5/ptx), and (3) with the kernel's 32-bit one-pack form
#     as well. e1's kernels are HEAD's SASS; e3's at most 32 registers (bf16 geglu_tanh
#     backward 40 -> 32).
#  3. vl2 = bench/experiments/rms-fwd-twice-l1.patch, OPK_EXP_TWICE_L1=2 (prepared in the
#     forty-first session): the L1 hints on the other twice kernels.
# Builds: bench/prepare_device_builds.sh check; variant l2 (ROCM=0), p2, e1 and e3
# (ROCM=0); pack. Carry build-var.
. bench/device_call.sh r2
dc_variants
dc_tests p2 "*softmax*" p2
dc_ab_rounds p2 p2 softmax_backward bf16 3
dc_ab_rounds e3 e3 swiglu_forward,swiglu_backward,geglu_forward,geglu_backward bf16,f32 2
dc_ab_rounds e1 e1 swiglu_forward,swiglu_backward bf16,f32 2
dc_ab_rounds l2 l2 rms_norm_forward bf16,f32 2
cat $R/times.txt $R/ab-p2.txt $R/ab-e3.txt $R/ab-e1.txt $R/ab-l2.txt
tail -n 3 $R/p2-*.txt
