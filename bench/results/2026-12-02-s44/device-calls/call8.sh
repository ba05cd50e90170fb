#!/usr/bin/env bash
# The forty-fourth session, call 8 (one command line, as run, inside the idle window after
# call 7): the bf16 norm forwards and the fp32 layer_norm and softmax forwards against the
# peers on 23dfc0c, three rounds. Carry build-var, .whl.
. bench/device_call.sh r8; dc_liger; export TORCH_LOGS=recompiles; dc_compare fwd16 --ops rms_norm_forward,layer_norm_forward --dtypes bf16 --rounds 3; dc_compare fwd32 --ops layer_norm_forward,softmax_forward --dtypes f32 --rounds 3; for f in fwd16 fwd32; do python3 bench/perf_table.py --summary $R/$f.json 2>&1 | grep "^|"; done; pack
