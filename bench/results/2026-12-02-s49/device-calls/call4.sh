#!/usr/bin/env bash
# The forty-ninth session's call 4: every op against the peers on HEAD's kernels
# (build-check 2e686e4; HEAD's vendors byte-identical), five alternating rounds a dtype, as
# the forty-sixth session's call 1 ran the standing table on 0eb9fe0: since then only
# rms_norm's 2-byte twice kernels changed (ef72821), whose rows the table had taken from the
# forty-eighth session's separate runs. Carry build-var and .whl.
. bench/device_call.sh r4
cat build-check/HEAD.txt
dc_liger
export TORCH_LOGS=recompiles  # a recompile would time Dynamo's dynamic-size kernel
dc_compare rounds-bf16 --dtypes bf16 --rounds 5
dc_compare rounds-f32 --dtypes f32 --rounds 5
cat $R/times.txt
for n in rounds-bf16 rounds-f32; do [ -f $R/$n.json ] && python3 bench/perf_table.py --summary $R/$n.json; done
pack
