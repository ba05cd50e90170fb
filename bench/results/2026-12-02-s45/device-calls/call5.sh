#!/usr/bin/env bash
# Forty-fifth session, call 5: every op against the peers again on the same build
# (build-check of 15d2e1b; the bench scripts of this commit), five rounds a dtype, now with
# gpu_compare.py's "copy" implementation: a device copy of each case's own bytes timed in
# the same rounds, so that perf_table.py --summary can say what fraction of a same-size
# copy each copy-bandwidth miss reached (the target stays against the 1 GiB copy).
# Carry build-var, .whl.
. bench/device_call.sh r5
cat build-check/HEAD.txt
dc_liger
export TORCH_LOGS=recompiles
dc_compare rounds-bf16 --dtypes bf16 --rounds 5
dc_compare rounds-f32 --dtypes f32 --rounds 5
cat $R/times.txt
for n in rounds-bf16 rounds-f32; do [ -f $R/$n.json ] && python3 bench/perf_table.py --summary $R/$n.json; done
pack
