#!/usr/bin/env bash
# Thirtieth session, call 1: the twenty-ninth session's prepared call
# (../../2026-11-30-s29/device-calls/prepared-next-call-1.sh) - layer_norm's fp32 split
# stash kernels asking L2 512 KB ahead (vln512 = bench/experiments/ln-split-ahead-512k.patch):
# the stash test case plain and with memcheck over the kernel, three A/B rounds against
# build-check (aeee5ba's build, HEAD's vendors), then layer_norm f32 against the peers in
# one run through vln512 (the standing table's row). Carry build-check, build-var, .whl.
. bench/device_call.sh r1
dc_variants
dc_liger
vp=$PWD/var/vln512/libopkit_vendor_cuda.so
t ln512-stash-tests timeout 60 env OPKIT_VENDOR_PATH=$vp build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
pack
t ln512-k2-memcheck timeout 90 env OPKIT_VENDOR_PATH=$vp compute-sanitizer --tool memcheck --error-exitcode 1 --kernel-name kns=_ln_bwd_stash_f32_k2 build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
pack
dc_ab_rounds bwd ln512 norm_backward f32 3
t compare-ln-f32 timeout 120 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --dtypes f32 --ops layer_norm --out $R/compare-ln-f32.json
pack
cat $R/times.txt $R/ab-bwd.txt; tail -n 3 $R/ln512-*.txt
python3 bench/perf_table.py --summary $R/compare-ln-f32.json | grep -E 'norm'
