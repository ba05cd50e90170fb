#!/usr/bin/env bash
# Thirtieth session, call 6: every op against the peers in one run a dtype
# (bench/gpu_compare.py, all cases) on build-check = cc58429's build, the one call 5
# checked: the standing table's rows at HEAD. Carry build-check, .whl. About 170 s.
. bench/device_call.sh r6
dc_liger
for dt in bf16 f32; do
  t compare-$dt timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --out $R/compare-$dt.json
  pack
done
cat $R/times.txt
for dt in bf16 f32; do python3 bench/perf_table.py --summary $R/compare-$dt.json; done
