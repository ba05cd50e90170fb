#!/usr/bin/env bash
# vop1 = the softmax backward's 2-byte rows of 4096 at one pack a thread
# (opk_softmax_bwd_one_pack_*, 512 threads, 2048 resident, 32 registers; the change as
# landed, applied to 47c187c): the softmax test cases through it, three A/B rounds against
# build-check's (47c187c) vendor, then the softmax rows against the peers through it in five
# rounds. Builds:
#   bench/prepare_device_builds.sh check            (at 47c187c)
#   git diff > /tmp/one-pack.patch; git stash
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant op1 /tmp/one-pack.patch
#   git stash pop; bench/prepare_device_builds.sh pack
# Carry build-check, build-var, .whl. About 250 s.
. bench/device_call.sh r3
dc_liger
dc_variants
dc_cuda_tests op1-tests "ops: softmax*" op1
pack
dc_ab_rounds op1 op1 softmax_backward bf16,f16,f32 3
t rounds-op1 timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$PWD/var/vop1/libopkit_vendor_cuda.so python3 bench/gpu_compare.py --ops softmax --dtypes bf16 --rounds 5 --out $R/rounds-op1.json
pack
cat $R/times.txt $R/ab-*.txt; tail -n 2 $R/*-tests.txt
python3 bench/perf_table.py --summary $R/rounds-op1.json | grep softmax
