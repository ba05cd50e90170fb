#!/usr/bin/env bash
# Thirty-first session, call 6: every op against the peers in one run a dtype
# (bench/gpu_compare.py, all cases) on build-check = 801a568's build, the one call 5
# checked: the standing table's rows at HEAD; then the norms in f16 (the dtype the held
# rows gained most in). Carry build-check, .whl. About 220 s.
. bench/device_call.sh r6
dc_liger
run_compare() {  # NAME ARGS...
  local name=$1
  shift
  t "$name" timeout 220 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py "$@" --out "$R/$name.json"
  pack
}
run_compare compare-bf16 --dtypes bf16
run_compare compare-f32 --dtypes f32
run_compare compare-norm-f16 --dtypes f16 --ops norm
cat $R/times.txt
for n in compare-bf16 compare-f32 compare-norm-f16; do python3 bench/perf_table.py --summary $R/$n.json; done
