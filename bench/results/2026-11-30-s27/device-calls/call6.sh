#!/usr/bin/env bash
# Twenty-seventh session, call 6, on build-check = 9af66d5 (its cuda vendor byte-identical to
# call 5's variant "bulk"). 1. The fp32 norm backwards and training steps against the peers
# for the standing table. 2. The whole GPU check (scripts/gpu-check-split.sh), with the new
# bulk-racecheck step.
# Carry build-check, .whl. About 500 s.
. bench/device_call.sh r6
dc_liger
t compare-nb-f32 timeout 120 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes f32 --ops 'norm_backward,norm (fwd' --out $R/compare-nb-f32.json
pack
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=430; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
grep -E 'norm' $R/compare-nb-f32.txt | cut -c1-250
tail -30 $R/check-split.txt
