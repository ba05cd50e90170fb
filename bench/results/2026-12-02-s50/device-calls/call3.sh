#!/usr/bin/env bash
# The fiftieth session's call 3: the dense gated kernels at 8 bytes a thread of each tensor
# (bench/experiments/ew-dense-8-byte.patch, OPK_EXP_EW_HALF=1: forwards and backwards),
# after call 2's layouts put 8-byte accesses 0.7-0.9 % ahead of the library's 16-byte ones
# on the gated backwards. Its element-wise test cases and conformance on cuda, then A/B
# three rounds against HEAD's vendor on swiglu and geglu, both dtypes.
# Builds: bench/prepare_device_builds.sh check; then
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant ew8 \
#     bench/experiments/ew-dense-8-byte.patch OPK_EXP_EW_HALF=1
#   bench/prepare_device_builds.sh pack
# Carry build-var.
. bench/device_call.sh r3
cat build-check/HEAD.txt
dc_variants
cat var/vew8/VARIANT.txt
dc_cuda_tests tests-ew8 "*swiglu*,*axpy*" ew8
tail -3 $R/tests-ew8.txt
t conformance-ew8 timeout 100 env OPKIT_VENDOR_PATH=var/vew8/libopkit_vendor_cuda.so build-check/bin/opkit-conformance --vendor cuda
tail -3 $R/conformance-ew8.txt
pack
dc_ab_rounds ew ew8 swiglu,geglu bf16,f32 3
cat $R/ab-ew.txt
cat $R/times.txt
pack
