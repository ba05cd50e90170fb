#!/usr/bin/env bash
# The forty-third session, call 3 (prepared in the forty-second session; the variant built and SASS-checked there).
# vtb = bench/experiments/rms-fwd-twice-block-row.patch, OPK_EXP_TWICE_BLOCK_ROW=1: rms_norm's
# twice kernels one block a row with a block for every row, no row walk (the form that
# took the 2-byte softmax backward at rows of 16384 to 0.995-0.997; Inductor's reduction
# kernels run one program a row). The same registers, 16-24 fewer instructions a kernel.
# The bf16 rms_norm forward at 8192x8192 trails torch.compile inside the kernel (1.35 us of
# span, the forty-second session's call 3). About 250 s with the machine's start.
# Builds: bench/prepare_device_builds.sh check;
#   bench/prepare_device_builds.sh variant tb bench/experiments/rms-fwd-twice-block-row.patch \
#     OPK_EXP_TWICE_BLOCK_ROW=1   (with the rocm vendor, for dc_tests)
#   bench/prepare_device_builds.sh pack
# Carry build-var.
. bench/device_call.sh r3
dc_variants
dc_ab_rounds tb tb rms_norm_forward bf16,f32 3
dc_tests tb "ops: rms_norm*" tb
cat $R/times.txt $R/ab-tb.txt
tail -n 3 $R/tb-*.txt
pack
