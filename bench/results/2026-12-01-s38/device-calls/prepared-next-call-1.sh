#!/usr/bin/env bash
# Prepared in the thirty-eighth session for the next one (not run): the whole GPU check owed
# on 8d67de6 (layer_norm's fp32 rows of 8192 with weight and bias loaded beside x; its
# layer_norm cases on both vendors and both conformance runs passed in call 9, not the rest),
# then the fp32 and bf16 norm forwards against the peers in five alternating rounds (the
# standing table's rms_norm forward rows were re-measured in call 7, layer_norm's not since
# the thirty-fifth session; torch.compile's fp32 rms_norm forward ran a slower kernel in
# call 7, so its row wants a second run). About 520 s; give the call 600.
# Builds (on the HEAD that has 8d67de6's kernels):
#   bench/prepare_device_builds.sh check
# Carry build-check, .whl.
. bench/device_call.sh r1
dc_liger
t rounds-norm-fwd timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --ops norm_forward --dtypes bf16,f32 --rounds 5 --out $R/rounds-norm-fwd.json
pack
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt; grep "== part" $R/check-split.txt
python3 bench/perf_table.py --summary --dtype bf16 $R/rounds-norm-fwd.json | grep norm
python3 bench/perf_table.py --summary --dtype f32 $R/rounds-norm-fwd.json | grep norm
# Then (a second call, about 150 s with the machine warm): vsh = bench/experiments/
# softmax-fwd-held.patch (OPK_EXP_SOFTMAX_HELD=1: the 2-byte softmax forwards of rows of
# 4096 / 8192 / 16384 at 256 x 2 / 512 x 2 / 512 x 4 with the lean harness's body, two
# barriers a row where group_online takes four). Builds:
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant sh bench/experiments/softmax-fwd-held.patch OPK_EXP_SOFTMAX_HELD=1
#   bench/prepare_device_builds.sh pack
# . bench/device_call.sh r2
# dc_variants
# dc_cuda_tests sh-tests "*softmax*" sh
# dc_cuda_tests sh-rows "*more rows than their grid*" sh
# pack
# dc_ab_rounds sh sh softmax_forward bf16,f16 3
# cat $R/times.txt $R/ab-*.txt; tail -n 3 $R/sh-*.txt
# And a third (about 150 s warm): vrbt = bench/experiments/rms-bwd-twice.patch
# (OPK_EXP_RMS_BWD_TWICE=1: rms_norm's 2-byte backward read twice, no ring, 1024 resident).
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant rbt bench/experiments/rms-bwd-twice.patch OPK_EXP_RMS_BWD_TWICE=1
# dc_cuda_tests rbt-tests "*norm backwards*" rbt
# dc_cuda_tests rbt-rms "*rms_norm*" rbt
# dc_ab_rounds rbt rbt rms_norm_backward bf16,f16 3
