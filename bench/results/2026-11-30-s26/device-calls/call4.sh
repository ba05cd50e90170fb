#!/usr/bin/env bash
# Twenty-sixth session, call 4, on build-check = 0c30f67 (the stash copies through L1:
# fp32 cluster norm backwards, cross-entropy's cluster kernels). The whole GPU check on
# this build, then the fp32 norms against the peers.
# Carry build-check, .whl. About 540 s.
. bench/device_call.sh r4
dc_liger
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
if [ $SECONDS -lt 520 ]; then
  t compare-f32 timeout 65 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes f32 --ops norm --out $R/compare-f32.json
  pack
fi
cat $R/times.txt
tail -n 15 $R/check-split.txt
cat $R/compare-f32.txt 2>/dev/null | tail -n 20
