#!/usr/bin/env bash
# Prepared in the forty-eighth session, not run (its device time was spent: 180 s were left,
# too little to start a machine).
# 1. The whole GPU check owed on the landing ef72821 (rms_norm's 2-byte twice kernels with
#    the row ahead in L2; its norm cases, both conformance runs and memcheck passed in the
#    forty-eighth session's call 4, but the whole check did not fit): build-check of HEAD,
#    parts limited to 480 s.
# 2. Variant "smtw" (bench/experiments/softmax-fwd-twice-l2-ahead.patch with
#    OPK_EXP_SOFTMAX_TWICE=1, cuda vendor only): softmax's 2-byte rows of 4096 (256 x 2) and
#    8192 (512 x 2, one block a row) read twice with the row 4 MB ahead in L2, the piece the
#    thirty-eighth session's softmax-fwd-twice.patch lacked (1.006 / 0.998 / 0.996 then) and
#    that turned rms_norm's 2-byte twice kernels; the bf16 softmax forward trails
#    Liger-Kernel at 8192x8192 (0.98x). A/B three rounds in bf16 and f16 against HEAD's
#    vendor. A landing would then need its softmax cases on both vendors (build its rocm
#    vendor too), both conformance runs and its tests' expectations (test_rocm_no_device's
#    softmax picks). With the patch and OPK_EXP_SOFTMAX_TWICE=1, Debian's hipcc built its
#    kernels for the six AMD targets and the AMD code-object gate passed (239 kernels; build
#    VM, in a CI clone).
# Builds: bench/prepare_device_builds.sh check;
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant smtw \
#     bench/experiments/softmax-fwd-twice-l2-ahead.patch OPK_EXP_SOFTMAX_TWICE=1
#   bench/prepare_device_builds.sh pack
# Carry build-var.
. bench/device_call.sh r1
cat build-check/HEAD.txt
dc_check 480
dc_variants
cat var/vsmtw/VARIANT.txt
dc_ab_rounds sm smtw softmax_forward bf16,f16 3
cat $R/ab-sm.txt
cat $R/times.txt
pack
