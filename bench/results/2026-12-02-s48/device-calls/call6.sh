#!/usr/bin/env bash
# Forty-eighth session, call 6: again (call 5 had the 8192x8192 forward 0.99x compile, 0.0667 ms where the forty-sixth session's run had 0.0663 on the old kernel), seven rounds: the bf16 rms_norm rows of the standing table on the landing
# (build-check of 2e686e4, ef72821's kernels) against the peers, with the copy
# of each case's bytes. Builds: call 4's. Carry build-var, .whl.
. bench/device_call.sh r6
cat build-check/HEAD.txt
dc_liger
export TORCH_LOGS=recompiles
dc_compare rms-bf16 --ops rms_norm --dtypes bf16 --rounds 7
python3 bench/perf_table.py --summary $R/rms-bf16.json
cat $R/times.txt
pack
