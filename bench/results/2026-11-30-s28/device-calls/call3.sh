#!/usr/bin/env bash
# Twenty-eighth session, call 3, on build-check = the commit that landed the fp32
# register-sum norm backwards' L2 rows ahead (kNormBwdRegsAheadBytes, 1 MB; call 2's vb1 /
# vb2) on 9a7ec40's forwards. 1. rms_norm and layer_norm forward and backward against the
# peers in one run a dtype, for the standing table's rows and their training steps.
# 2. The whole GPU check (scripts/gpu-check-split.sh).
# Carry build-check, .whl. About 520 s.
. bench/device_call.sh r4
dc_liger
for dt in f32 bf16; do
  t compare-norms-$dt timeout 100 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --ops rms_norm,layer_norm --out $R/compare-norms-$dt.json
  pack
done
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
python3 bench/perf_table.py --summary $R/compare-norms-bf16.json | grep -E 'norm'
python3 bench/perf_table.py --summary $R/compare-norms-f32.json | grep -E 'norm'
tail -30 $R/check-split.txt
