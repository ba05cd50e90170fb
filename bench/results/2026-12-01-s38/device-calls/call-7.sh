#!/usr/bin/env bash
# Call 7 of the thirty-eighth session, on 61fac3f's build (fd71ab9's kernels: the rms_norm
# forwards read twice): the rms_norm forward against the peers in five alternating rounds,
# bf16 and fp32 (the standing table's rms_norm forward rows). Carry build-check, .whl.
. bench/device_call.sh r7
dc_liger
t rounds-rms timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --ops rms_norm_forward --dtypes bf16,f32 --rounds 5 --out $R/rounds-rms.json
pack
cat $R/times.txt
python3 bench/perf_table.py --summary --dtype bf16 $R/rounds-rms.json | grep rms
python3 bench/perf_table.py --summary --dtype f32 $R/rounds-rms.json | grep rms
