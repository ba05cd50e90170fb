#!/usr/bin/env bash
# Thirty-sixth session, call 3, on the build of the commit after 018fe6a (rope q+k through
# opk_rope_qk_dense and cos/sin kept in L2, landed from calls 1-2's rqk and rh1): the rope cases against the peers in
# five alternating rounds (bench/gpu_compare.py --ops rope --rounds 5), then the whole GPU
# check (scripts/gpu-check-split.sh: cuda and rocm-over-HIP-over-CUDA suites, conformance,
# pytest, memcheck and racecheck, tiny_lm). Carry build-check (whole: the check loads the
# rocm vendor), .whl. About 420 s.
. bench/device_call.sh r3
dc_liger
t rounds-rope timeout 120 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --ops rope --rounds 5 --out $R/rounds-rope.json
pack
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
python3 bench/perf_table.py --summary $R/rounds-rope.json | grep rope
tail -40 $R/check-split.txt
