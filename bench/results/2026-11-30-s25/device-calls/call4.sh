#!/usr/bin/env bash
# Twenty-fifth session, call 4, on build-check = HEAD (c1aea53) + the fp32 cluster stash
# backwards' dx packs stored whole (stash_rows.cuh store16_whole; uncommitted tree, the
# build that would land). Variant v0 (build-var/var.tar.xz) = HEAD's own vendors, so the
# A/B ratio is old / new (> 1: the change is faster). Call 3 measured the store fix only
# on top of the mbarrier gather (vst against base: rms_norm 4096x16384 0.982).
# Then the whole GPU check on this build and the fp32 norms against the peers.
# Carry build-check, build-var/var.tar.xz, .whl. About 560 s.
. bench/device_call.sh r4
dc_liger
dc_variants
dc_ab_rounds st0 '0' norm_backward f32 2
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=440; t check-split scripts/gpu-check-split.sh build-check )
pack
if [ $SECONDS -lt 530 ]; then
  t compare-f32 timeout 60 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes f32 --ops norm --out $R/compare-f32.json
  pack
fi
cat $R/times.txt
cat $R/ab-st0.txt
tail -n 15 $R/check-split.txt
cat $R/compare-f32.txt 2>/dev/null | tail -n 20
