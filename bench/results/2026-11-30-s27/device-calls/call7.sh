#!/usr/bin/env bash
# Twenty-seventh session, call 7, on build-check = 9af66d5: rms_norm and layer_norm, forward
# and backward in one run a dtype, against the peers, for the standing table's rows of both
# and their training steps (perf_table.py adds a run's forward and backward). Carry
# build-check, .whl. About 160 s.
. bench/device_call.sh r7
dc_liger
for dt in f32 bf16; do
  t compare-norms-$dt timeout 100 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --ops rms_norm,layer_norm --out $R/compare-norms-$dt.json
  pack
done
cat $R/times.txt
