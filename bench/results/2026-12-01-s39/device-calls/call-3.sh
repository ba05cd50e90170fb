# The candidate 1884c06 (rms_norm's fp32 rows of 8192 with the weight loaded beside x,
# opk_rms_fwd_params_f32_g512x4) as build-check, HEAD's 9c9a4ef kernels as the variant vold
# (its diff reversed): three A/B rounds of the fp32 rms_norm forward (a ratio above 1: the
# candidate faster), then, only where the candidate won at 8192x8192, the whole GPU check.
# Builds: bench/prepare_device_builds.sh check (at 1884c06);
#   git diff HEAD HEAD~1 -- vendors > /tmp/old.patch
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant old /tmp/old.patch; ... pack
# Carry build-check, build-var, .whl.
. bench/device_call.sh r3
dc_variants
dc_ab_rounds rp old rms_norm_forward f32 3
cat $R/ab-rp.txt
ratio=$(awk '$1 == "rms_norm_forward" && $2 == "8192x8192" {print $NF}' $R/ab-rp.txt)
echo "old / candidate at 8192x8192: $ratio"
if awk -v r="$ratio" 'BEGIN {exit !(r > 1.003)}'; then
  ( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
  pack
  grep "== part" $R/check-split.txt
fi
cat $R/times.txt
