#!/usr/bin/env bash
# Run as the forty-ninth session's call 2 (prepared in the forty-eighth).
# Prepared in the forty-eighth session, not run. Two variants of HEAD's cuda vendor, each
# adding the row 4 MB ahead in L2 (as the fixed-group forwards ask it) to a kernel that had
# none -- the piece that turned rms_norm's 2-byte twice kernels (ef72821):
#  - "smtw" (bench/experiments/softmax-fwd-twice-l2-ahead.patch, OPK_EXP_SOFTMAX_TWICE=1):
#    softmax's 2-byte rows of 4096 (256 x 2) and 8192 (512 x 2, one block a row) read twice,
#    each thread's (max, sum of exp) merged in one reduction, the thirty-eighth session's
#    softmax-fwd-twice.patch (1.006 / 0.998 / 0.996 then, without the prefetch) ported to
#    HEAD; against the bf16 softmax forward's 0.98x Liger-Kernel at 8192x8192. With it set,
#    Debian's hipcc built its kernels for the six AMD targets and the AMD code-object gate
#    passed (239 kernels; build VM). A landing would need its softmax cases on both vendors
#    (build its rocm vendor too), both conformance runs and test_rocm_no_device's softmax
#    picks updated.
#  - "lnpf" (bench/experiments/ln-fwd-params-l2-ahead.patch, OPK_EXP_LN_PARAMS_L2_AHEAD=1):
#    layer_norm's fp32 rows of 8192 (opk_ln_fwd_params_f32_g512x4, 63 registers, no spill)
#    asking L2 for the row ahead; against the fp32 layer_norm forward's 0.999x Liger-Kernel
#    at 8192x8192.
# A/B three rounds each against HEAD's vendor.
# Builds: bench/prepare_device_builds.sh check; then
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant smtw \
#     bench/experiments/softmax-fwd-twice-l2-ahead.patch OPK_EXP_SOFTMAX_TWICE=1
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant lnpf \
#     bench/experiments/ln-fwd-params-l2-ahead.patch OPK_EXP_LN_PARAMS_L2_AHEAD=1
#   bench/prepare_device_builds.sh pack
# Carry build-var.
. bench/device_call.sh r2
cat build-check/HEAD.txt
dc_variants
cat var/vsmtw/VARIANT.txt var/vlnpf/VARIANT.txt
dc_ab_rounds sm smtw softmax_forward bf16,f16 3
cat $R/ab-sm.txt
dc_ab_rounds ln lnpf layer_norm_forward f32 3
cat $R/ab-ln.txt
cat $R/times.txt
pack
