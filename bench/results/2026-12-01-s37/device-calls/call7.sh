#!/usr/bin/env bash
# Thirty-seventh session, call 7, on 02bce08's build (the one-pack softmax backward's row sum
# through the fixed-group stage): the softmax test cases on cuda and on rocm over the
# HIP-over-CUDA shim, both vendors' conformance (the parts of the whole check that run the
# changed kernel; call 4 ran the whole check on b6cfa6b), then the softmax cases against the
# peers in five alternating rounds. Carry build-check (whole), .whl. About 200 s.
. bench/device_call.sh r7
dc_liger
dc_tests head "ops: softmax*"
pack
t rounds-softmax timeout 150 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --ops softmax --rounds 5 --out $R/rounds-softmax.json
pack
cat $R/times.txt; tail -n 3 $R/head-*.txt
python3 bench/perf_table.py --summary $R/rounds-softmax.json | grep softmax
