#!/usr/bin/env bash
# Forty-eighth session, call 7 (the last of its device time): variant "smtw"
# (bench/experiments/softmax-fwd-twice-l2-ahead.patch with OPK_EXP_SOFTMAX_TWICE=1, cuda
# vendor only): softmax's 2-byte rows of 4096 and 8192 read twice with the row 4 MB ahead
# in L2. A/B three rounds of the softmax forward in bf16 and f16 against HEAD's vendor
# (build-check of 2e686e4). No tests: a landing would need its cases, both conformance
# runs and the whole check in a later call.
# Builds: OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant smtw
#   bench/experiments/softmax-fwd-twice-l2-ahead.patch OPK_EXP_SOFTMAX_TWICE=1; pack.
# Carry build-var.
. bench/device_call.sh r7
cat build-check/HEAD.txt
dc_variants
cat var/vsmtw/VARIANT.txt
dc_ab_rounds sm smtw softmax_forward bf16,f16 3
cat $R/ab-sm.txt
cat $R/times.txt
pack
