# Every op against the peers in five alternating rounds, bf16 then f32 (as the thirty-fifth
# session's call 2, the standing table's source), with bench/gpu_compare.py now resetting
# Dynamo before each case family so that torch.compile compiles each shape statically
# (before: the shapes after an op's first were recompiles with automatic dynamic shapes).
# TORCH_LOGS=recompiles: any recompile left is logged into the runs' text files.
# build-check = 9c9a4ef (HEAD). Carry build-check, .whl.
. bench/device_call.sh r4
dc_liger
run_compare() {  # NAME LIMIT ARGS...
  local name=$1 limit=$2
  shift 2
  t "$name" timeout "$limit" env TORCH_LOGS=recompiles PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py "$@" --out "$R/$name.json"
  pack
}
run_compare rounds-bf16 280 --dtypes bf16 --rounds 5
run_compare rounds-f32 $((560 - SECONDS)) --dtypes f32 --rounds 5
cat $R/times.txt; grep -ci "recompil" $R/rounds-*.txt
for n in rounds-bf16 rounds-f32; do [ -f $R/$n.json ] && python3 bench/perf_table.py --summary $R/$n.json; done
