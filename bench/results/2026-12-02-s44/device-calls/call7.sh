#!/usr/bin/env bash
# The forty-fourth session, call 7 (sent as one command line inside the idle window after
# call 6; recorded here as run). The bf16 softmax against the peers on 23dfc0c, three rounds,
# the two shapes of its bold cells that the remaining device time allowed. Carry build-var, .whl.
. bench/device_call.sh r7; dc_liger; export TORCH_LOGS=recompiles; dc_compare sm --ops softmax_forward,softmax_backward --dtypes bf16 --rounds 3 --shapes 8192x8192,4096x16384; python3 bench/perf_table.py --summary $R/sm.json 2>&1 | tail -8; pack
