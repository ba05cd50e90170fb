#!/usr/bin/env bash
# Ran as the twenty-first session's call 2 (prepared in the twentieth): vce (bench/experiments/
# ce-loss-sum-counts.patch on 586870f: the cross-entropy loss forward without the count's
# memset and kernel, the loss sum counting the targets itself and launched dependent), cuda
# and rocm vendors in build-var/var.tar.xz beside vold (0c41253's cuda vendor, unused here).
# (a) the cross-entropy test cases on cuda with vce, and on rocm over the HIP-over-CUDA
# shim with vce's rocm vendor, side by side (in the background: each may take minutes),
# conformance of both; (b) the cross-entropy forwards and backward, bf16 and f32, twice
# alternating against build-check's own vendor (09c47fd), each run packed at once;
# (c) bench/kernel_breakdown.py on vce's cross-entropy. Carry build-check and
# build-var/var.tar.xz.
. bench/device_call.sh r2
dc_variants
VCE=$PWD/var/vce/libopkit_vendor_cuda.so
hip="$PWD/build-check/tests/hip_on_cuda/hip:$PWD/build-check/tests/hip_on_cuda/hipblaslt:$PWD/build-check/tests/hip_on_cuda/rocblas"
cp var/vce/libopkit_vendor_rocm.so build-check/lib/opkit/vendors/libopkit_vendor_rocm.so
t ce-tests timeout 200 env OPKIT_VENDOR_PATH=$VCE build-check/bin/opkit_cuda_tests "ops: cross_entropy*" &
t ce-tests-rocm timeout 200 env LD_LIBRARY_PATH=$hip build-check/bin/opkit_rocm_tests "ops: cross_entropy*" &
wait
t conformance-vce timeout 100 env OPKIT_VENDOR_PATH=$VCE build-check/bin/opkit-conformance --vendor cuda &
t conformance-rocm timeout 100 env LD_LIBRARY_PATH=$hip build-check/bin/opkit-conformance --vendor rocm &
wait
pack
for i in 1 2; do
  dc_ab ce-base-$i base cross_entropy bf16,f32
  pack
  dc_ab ce-vce-$i ce cross_entropy bf16,f32
  pack
done
python3 bench/ab_table.py $R ce-base ce-vce > $R/ab-ce.txt 2>&1
t kb-ce timeout 100 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$VCE python3 bench/kernel_breakdown.py --dtypes bf16 --ops cross_entropy
pack
cat $R/times.txt $R/ab-ce.txt
grep -h "call " $R/kb-ce.txt
