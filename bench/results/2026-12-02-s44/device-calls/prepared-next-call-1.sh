#!/usr/bin/env bash
# Prepared in the forty-fourth session for the next one (not run). Every op against the
# peers on HEAD: the standing table of docs/PERFORMANCE.md is 16225e4's (forty-third
# session), stale since 23dfc0c changed every kernel's parameter order and took three
# fixed-group forwards to one block a row (old / new 0.999-1.008 on the 36 rows measured).
# Five alternating rounds a dtype, as the forty-third session's call 2 (100 and 106 s there).
# Builds: bench/prepare_device_builds.sh check; pack. Carry build-var, .whl.
. bench/device_call.sh r1
cat build-check/HEAD.txt
dc_liger
export TORCH_LOGS=recompiles  # a recompile would time Dynamo's dynamic-size kernel
dc_compare rounds-bf16 --dtypes bf16 --rounds 5
dc_compare rounds-f32 --dtypes f32 --rounds 5
cat $R/times.txt
for n in rounds-bf16 rounds-f32; do [ -f $R/$n.json ] && python3 bench/perf_table.py --summary $R/$n.json; done
pack
