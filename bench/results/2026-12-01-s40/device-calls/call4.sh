#!/usr/bin/env bash
# The whole GPU check on 09c0a72 (the twice kernels' x ahead of their stores, over e385d0a's
# opk_rms_fwd_twice_f32_g1024x4), build-check packed; then, only if time allows, the
# rms_norm forward against the peers in three rounds. Carry build-var, .whl.
. bench/device_call.sh r4
cat build-check/HEAD.txt
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=430; t check-split scripts/gpu-check-split.sh build-check )
pack
grep "== part" $R/check-split.txt
if [ $SECONDS -lt 385 ]; then
  dc_liger
  dc_compare rms-fwd --ops rms_norm_forward --dtypes bf16,f32 --rounds 3
  python3 bench/perf_table.py --summary $R/rms-fwd.json
fi
cat $R/times.txt
