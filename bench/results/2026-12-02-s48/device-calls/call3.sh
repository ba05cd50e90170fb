#!/usr/bin/env bash
# Forty-eighth session, call 3: variant "twpf" (bench/experiments/norm-fwd-twice-l2-ahead.patch
# with OPK_EXP_TWICE_L2_AHEAD=1, both vendors): layer_norm's 2-byte rows of 4096, 8192 and
# 16384 read twice (call 2's kernels) and every twice kernel asking L2 for the row 4 MB
# ahead, as the fixed kernels do; rms_norm's 2-byte rows of 16384 read twice too (512 x 4,
# one block a row). A/B three rounds of both forwards in fp32, bf16 and f16 against HEAD's
# vendor, then their cases on cuda and rocm over HIP-over-CUDA and both conformance runs.
# Builds: check.tar.xz as carried (0eb9fe0's), then
#   bench/prepare_device_builds.sh variant twpf bench/experiments/norm-fwd-twice-l2-ahead.patch OPK_EXP_TWICE_L2_AHEAD=1
#   bench/prepare_device_builds.sh pack
# Carry build-var.
. bench/device_call.sh r3
cat build-check/HEAD.txt
dc_variants
cat var/vtwpf/VARIANT.txt
dc_ab_rounds fwd twpf rms_norm_forward,layer_norm_forward f32,bf16,f16 3
cat $R/ab-fwd.txt
dc_tests norms "ops: rms_norm*,ops: layer_norm*" twpf
for f in norms-tests norms-tests-rocm norms-conformance norms-conformance-rocm; do
    echo "== $f"; tail -n 3 $R/$f.txt
done
cat $R/times.txt
pack
