#!/usr/bin/env bash
# Ran as the twenty-first session's call 1 (prepared in the twentieth): the whole GPU check owed to b25e763
# (the norm backwards' column sums in one dependent launch), which no device time was left
# for, and the CUDA-graph test of 09c47fd. build-check is 09c47fd's build (ignored); if it
# is gone, rebuild it from HEAD: a GPU build (build-gpu: -DOPKIT_CUDA_ARCHS=90
# -DOPKIT_CUDA_PTX= -DOPKIT_VENDOR_ROCM=ON -DOPKIT_ROCM_TEST_ON_CUDA=ON), then its bin/
# opkit-info, opkit_cuda_tests, opkit_api_tests, opkit-conformance, opkit_unit_tests,
# tiny_lm and opkit_rocm_tests, its lib/ without static libraries, and its
# tests/fake_vendor and tests/hip_on_cuda, object files left out (27 MB).
# Carry build-check. About 340 s.
. bench/device_call.sh r1
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
