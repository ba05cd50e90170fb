#!/usr/bin/env bash
# The forty-ninth session's call 6: is opkit's longer time outside its kernels (call 5) in
# how it loads and launches them? bench/experiments/launch_path_probe.cu times the same
# SASS (opk_rms_fwd_twice_block_row_bf16_g512x2, bf16 8192x8192) behind the spin four ways:
# from the vendor's norms.fatbin through cuModuleLoadData, launched as opkit does
# (cuCtxPushCurrent, cuLaunchKernel, cuCtxPopCurrent) and without the push and pop; compiled
# into the probe and launched with <<<>>> and with cuLaunchKernel; a memcpy of the same
# bytes beside them. Then call 3's breakdown again with CUDA_MODULE_LOADING=EAGER (whether
# lazy loading is part of it). Built on the build VM:
#   nvcc -std=c++17 -O3 -arch=sm_90 -o build-var/probe/launch_path_probe \
#        bench/experiments/launch_path_probe.cu -lcuda
#   cp build-gpu/vendors/cuda/fatbin/norms.fatbin build-var/probe/   (HEAD's; its SASS of the
#   kernel equals the probe's own, cuobjdump)
# Carry build-var and .whl.
. bench/device_call.sh r6
cat build-check/HEAD.txt
t probe timeout 120 build-var/probe/launch_path_probe build-var/probe/norms.fatbin
pack
dc_liger
t kb-eager dc_peers env CUDA_MODULE_LOADING=EAGER timeout 200 python3 bench/kernel_breakdown.py \
    --impls opkit,compile,liger,copy --behind-spin --calls 30 --dtypes bf16 --ops rms_norm_forward,swiglu_forward --shapes 8192x8192
pack
cat $R/times.txt $R/probe.txt
grep -v -e Warning -e _warn_once $R/kb-eager.txt
