#!/usr/bin/env bash
# Thirty-seventh session, call 4, on b6cfa6b's build (opk_softmax_bwd_one_pack landed): the
# softmax cases against the peers in five alternating rounds, then the whole GPU check
# (scripts/gpu-check-split.sh: cuda and rocm-over-HIP-over-CUDA suites, conformance,
# pytest, memcheck and racecheck, tiny_lm). Carry build-check (whole), .whl. About 520 s.
. bench/device_call.sh r4
dc_liger
t rounds-softmax timeout 120 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --ops softmax --rounds 5 --out $R/rounds-softmax.json
pack
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
python3 bench/perf_table.py --summary $R/rounds-softmax.json | grep softmax
tail -40 $R/check-split.txt
