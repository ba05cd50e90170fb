#!/usr/bin/env bash
# Nineteenth session, call 2, the tree at 157f384 (build-check: kernels of 8c64c9d, the
# same SASS): (a) every op against the peers in one run, bf16 then f32 (the standing
# table had mixed three sessions' runs); (b) where the embedding backward's time goes
# (bench/emb_bwd_breakdown.py: each kernel's device time, and the write-only fill of
# dweight as the floor), bf16 and f32.
. bench/device_call.sh r2
dc_liger
for dt in bf16 f32; do
  t compare-$dt timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --out $R/compare-$dt.json
  pack
done
for dt in bf16 f32; do
  t emb-bwd-$dt timeout 60 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB python3 bench/emb_bwd_breakdown.py --dtype $dt
done
pack
cat $R/times.txt $R/emb-bwd-*.txt
