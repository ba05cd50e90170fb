#!/usr/bin/env bash
# The candidate e385d0a (rms_norm's fp32 rows of 16384 read twice at 1024 x 4,
# opk_rms_fwd_twice_f32_g1024x4) as build-check (packed: build-var/check.tar.xz), its parent's
# kernels as the variant vold (the diff reversed): three A/B rounds of the fp32 rms_norm
# forward (a ratio above 1: the candidate faster), then, only where the candidate won at
# 4096x16384, the whole GPU check; then, time allowing, the fp32 rms_norm forward against
# the peers in five rounds.
# Builds: bench/prepare_device_builds.sh check (at e385d0a);
#   git diff HEAD HEAD~1 -- vendors > /tmp/old.patch
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant old /tmp/old.patch; ... pack
# Carry build-var, .whl.
. bench/device_call.sh r2
cat build-check/HEAD.txt
dc_variants
dc_liger
dc_ab_rounds tw old rms_norm_forward f32 3
cat $R/ab-tw.txt
ratio=$(awk '$1 == "rms_norm_forward" && $2 == "4096x16384" {print $NF}' $R/ab-tw.txt)
echo "old / candidate at 4096x16384: $ratio"
if awk -v r="$ratio" 'BEGIN {exit !(r > 1.003)}'; then
  ( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
  pack
  grep "== part" $R/check-split.txt
fi
[ $SECONDS -lt 480 ] && dc_compare rms-f32 --ops rms_norm_forward --dtypes f32 --rounds 5
cat $R/times.txt
[ -f $R/rms-f32.json ] && python3 bench/perf_table.py --summary --dtype f32 $R/rms-f32.json
