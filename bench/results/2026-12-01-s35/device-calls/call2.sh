#!/usr/bin/env bash
# Thirty-fifth session, call 2: every op against the peers with the implementations
# timed in five alternating rounds (bench/gpu_compare.py --rounds 5, new: the median of the
# rounds is a row's time, each round's kept), bf16 then f32, on build-check = HEAD's
# build (kernels of 8fe5d9a, as the thirty-fourth session's standing table): which of the
# bold rows are short of their peer in every round and which are within the spread
# between rounds. First a two-round smoke run of one case (the new code's first run on a
# GPU); the full runs only if it passed. Carry build-check (less its rocm vendor), .whl.
. bench/device_call.sh r2
dc_liger
run_compare() {  # NAME LIMIT ARGS...
  local name=$1 limit=$2
  shift 2
  t "$name" timeout "$limit" env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py "$@" --out "$R/$name.json"
  pack
  grep -q "^$name rc 0 " "$R/times.txt"  # t records the command's status there
}
if run_compare smoke 120 --dtypes bf16 --ops rope_forward --shapes 4x4096x32x128 --rounds 2; then
  run_compare rounds-bf16 300 --dtypes bf16 --rounds 5
  [ $SECONDS -lt 330 ] && run_compare rounds-f32 $((560 - SECONDS)) --dtypes f32 --rounds 5
fi
cat $R/times.txt; tail -n 4 $R/smoke.txt
for n in rounds-bf16 rounds-f32; do [ -f $R/$n.json ] && python3 bench/perf_table.py --summary $R/$n.json; done
