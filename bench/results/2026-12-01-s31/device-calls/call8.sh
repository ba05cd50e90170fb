#!/usr/bin/env bash
# Thirty-first session, call 8: build-check = 8fe5d9a's build (layer_norm's f16 ring
# forward retired on top of 801a568, whose whole check passed in call 5; every norms kernel
# left is SASS-identical to 801a568's). Its layer_norm test cases on cuda and on rocm over
# the HIP-over-CUDA shim, conformance of both, the stash-kernels-ran part of the GPU check
# (its list without the ring forwards), then the f16 and bf16 layer_norm forwards against
# the peers. Carry build-check, .whl. About 280 s.
. bench/device_call.sh r8
dc_liger
dc_tests ln "ops: layer_norm*"
pack
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=200 OPKIT_GPU_CHECK_ONLY='^stash-kernels-ran$'; t check-stash scripts/gpu-check.sh build-check )
pack
t compare-ln-fwd timeout 120 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes f16,bf16 --ops layer_norm_forward --out $R/compare-ln-fwd.json
pack
cat $R/times.txt; tail -n 3 $R/ln-*.txt; tail -n 8 $R/check-stash.txt
python3 bench/perf_table.py --summary $R/compare-ln-fwd.json
