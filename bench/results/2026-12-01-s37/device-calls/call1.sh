#!/usr/bin/env bash
# Prepared in the thirty-sixth session for the next one: rms_norm's 2-byte fixed forwards
# at two packs a thread (bench/experiments/rms-fwd-two-packs.patch; x2a = rows of 4096 at
# 256 x 2 and of 8192 at 512 x 2, x2b = rows of 4096 only). The bf16 rms_norm forward
# trails Liger-Kernel by 1.2 % at 32768x4096 in every round of the standing table; Nsight
# Compute (this session's r2/gaps-stalls.txt) has the 128 x 4 kernel at 56 registers and
# 34 warps an SM against Liger's 38 and 45. Builds (both build for sm_90 without spills;
# kernel_params.h changes, so each is a whole cuda-vendor rebuild, about a minute here):
#   bench/prepare_device_builds.sh check
#   OPKIT_PREPARE_ROCM=0 OPKIT_PREPARE_RESTORE_BUILD=0 bench/prepare_device_builds.sh variant x2a bench/experiments/rms-fwd-two-packs.patch OPK_EXP_RMS_FWD_X2=1
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant x2b bench/experiments/rms-fwd-two-packs.patch OPK_EXP_RMS_FWD_X2=2
#   bench/prepare_device_builds.sh pack
# rms_norm's test cases on each variant, three A/B rounds each against build-check's vendor,
# then the better one against the peers in five rounds. Carry build-check, build-var,
# .whl. About 400 s.
. bench/device_call.sh r1
dc_liger
dc_variants
for v in x2a x2b; do dc_cuda_tests $v-tests "ops: rms_norm*" $v; done
pack
dc_ab_rounds x2a x2a rms_norm_forward bf16,f16 3
dc_ab_rounds x2b x2b rms_norm_forward bf16,f16 3
t rounds-x2a timeout 120 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$PWD/var/vx2a/libopkit_vendor_cuda.so python3 bench/gpu_compare.py --ops rms_norm --dtypes bf16 --rounds 5 --out $R/rounds-x2a.json
pack
cat $R/times.txt $R/ab-*.txt; tail -n 2 $R/*-tests.txt
python3 bench/perf_table.py --summary $R/rounds-x2a.json | grep rms_norm
