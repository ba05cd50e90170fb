#!/usr/bin/env bash
# vS: the rms_norm 2-byte four-pack stash backward (rows of 16384) with its dweight sums in
# shared memory after the ring (norm_stash_shared_sums; the working tree after call 1),
# cuda and rocm vendors in build-var/var.tar.xz; base: build-check's (kernels of 9a95bdc,
# the norms unchanged since). (a) the norm stash test cases and conformance on vS, cuda and
# rocm over the HIP-over-CUDA shim (vS's rocm vendor copied over build-check's); (b) the
# rms_norm backward A/B, bf16 and f16, alternating three times; (c) rms_norm against the
# peers in bf16 (every shape, opkit through vS) for the standing table's rms rows.
# Carry build-check, build-var/var.tar.xz and .whl.
. bench/device_call.sh r2
dc_liger
dc_variants
VS=$PWD/var/vS/libopkit_vendor_cuda.so
hip="$PWD/build-check/tests/hip_on_cuda/hip:$PWD/build-check/tests/hip_on_cuda/hipblaslt:$PWD/build-check/tests/hip_on_cuda/rocblas"
t norm-tests-vS timeout 120 env OPKIT_VENDOR_PATH=$VS build-check/bin/opkit_cuda_tests "ops: *norm*"
cp var/vS/libopkit_vendor_rocm.so build-check/lib/opkit/vendors/libopkit_vendor_rocm.so
t norm-tests-rocm timeout 150 env LD_LIBRARY_PATH=$hip build-check/bin/opkit_rocm_tests "ops: *norm*"
t conformance-vS timeout 100 env OPKIT_VENDOR_PATH=$VS build-check/bin/opkit-conformance --vendor cuda
t conformance-rocm timeout 100 env LD_LIBRARY_PATH=$hip build-check/bin/opkit-conformance --vendor rocm
pack
for i in 1 2 3; do
  dc_ab rms-base-$i base rms_norm_backward bf16,f16
  dc_ab rms-vS-$i S rms_norm_backward bf16,f16
done
python3 bench/ab_table.py $R rms-base rms-vS > $R/ab-rms.txt 2>&1
pack
t compare-rms-bf16 timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$VS python3 bench/gpu_compare.py --ops rms_norm --dtypes bf16 --out $R/compare-rms-bf16.json
pack
cat $R/times.txt $R/ab-rms.txt
