#!/usr/bin/env bash
# The norm backwards' column sums in one launch (dweight and dbias a grid row each) that
# may overlap the row kernel's drain (programmatic dependent launch; the stash kernels
# allow it after their last row): build-check rebuilt from the working tree after
# 5e5a00a; vold = 0c41253's cuda vendor (build-var/var.tar.xz). (a) the norm test cases on
# cuda, with and without the cluster kernels, and on rocm over the HIP-over-CUDA shim;
# conformance of both; (b) the norm backwards, bf16 / f16 / f32, three rounds alternating:
# vold, the new vendor, the new vendor with OPKIT_CUDA_DEPENDENT_LAUNCH=0 (one launch,
# plain); (c) bench/kernel_breakdown.py on the norm backwards, new vendor, bf16 and f32.
# Carry build-check and build-var/var.tar.xz.
. bench/device_call.sh r6
dc_variants
hip="$PWD/build-check/tests/hip_on_cuda/hip:$PWD/build-check/tests/hip_on_cuda/hipblaslt:$PWD/build-check/tests/hip_on_cuda/rocblas"
F="ops: rms_norm*,ops: layer_norm*,ops: norm backwards*"
t norm-tests timeout 200 build-check/bin/opkit_cuda_tests "$F"
t norm-tests-no-clusters timeout 200 env OPKIT_CUDA_CLUSTER_KERNELS=0 build-check/bin/opkit_cuda_tests "$F"
t norm-tests-rocm timeout 200 env LD_LIBRARY_PATH=$hip build-check/bin/opkit_rocm_tests "$F"
t conformance timeout 100 build-check/bin/opkit-conformance --vendor cuda
t conformance-rocm timeout 100 env LD_LIBRARY_PATH=$hip build-check/bin/opkit-conformance --vendor rocm
pack
ab() {  # NAME VENDOR_PATH [ENV...]
  t "$1" timeout 120 env PYTHONPATH="$PWD/python" OPKIT_LIBRARY="$DC_LIB" OPKIT_VENDOR_PATH="$2" "${@:3}" \
    python3 bench/gpu_compare.py --impls opkit --ops norm_backward --dtypes bf16,f16,f32 --out "$R/$1.json"
}
for i in 1 2 3; do
  ab nb-old-$i $PWD/var/vold/libopkit_vendor_cuda.so
  ab nb-new-$i ""
  ab nb-plain-$i "" OPKIT_CUDA_DEPENDENT_LAUNCH=0
done
python3 bench/ab_table.py $R nb-old nb-new > $R/ab-new.txt 2>&1
python3 bench/ab_table.py $R nb-old nb-plain > $R/ab-plain.txt 2>&1
pack
t kb-norm-bwd timeout 200 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB python3 bench/kernel_breakdown.py --dtypes bf16,f32 --ops norm_backward
pack
cat $R/times.txt $R/ab-new.txt $R/ab-plain.txt
grep -h "call " $R/kb-norm-bwd.txt
