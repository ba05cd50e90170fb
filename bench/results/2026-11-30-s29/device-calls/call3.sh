#!/usr/bin/env bash
# Twenty-ninth session, call 3, on build-check = 516cff2 (the column sums in quads as kernels
# of their own, opk_column_sum4, from rows of 16384; rms_norm's fp32 split backwards' L2
# rows ahead). 1. A/B against vold (c996484's vendors), three rounds: the landed form.
# 2. rms_norm and layer_norm forward and backward against the peers in one run a dtype
# (the standing table's rows). Carry build-check, build-var, .whl. About 170 s.
. bench/device_call.sh r3
dc_variants
dc_liger
for i in 1 2 3; do
  dc_ab bwd-old-$i old norm_backward bf16,f32; pack
  dc_ab bwd-new-$i base norm_backward bf16,f32; pack
done
python3 bench/ab_table.py $R bwd-old bwd-new > $R/ab-bwd.txt 2>&1
pack
for dt in f32 bf16; do
  t compare-norms-$dt timeout 100 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --ops rms_norm,layer_norm --out $R/compare-norms-$dt.json
  pack
done
cat $R/times.txt $R/ab-bwd.txt
python3 bench/perf_table.py --summary $R/compare-norms-bf16.json | grep -E 'norm'
python3 bench/perf_table.py --summary $R/compare-norms-f32.json | grep -E 'norm'
