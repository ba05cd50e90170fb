#!/usr/bin/env bash
# Prepared in the nineteenth session (prepared-next-call.sh there), run as the twentieth
# session's first call. opk_emb_bwd_write_ids loading a position's id two
# positions ahead and its owner and tag one ahead (vB: bench/experiments/
# emb-write-ids-prefetch.patch on 9a95bdc, the kernel change alone; ptxas: 64 / 74 / 72
# registers bf16 / f16 / f32, no stack) against 9a95bdc's (base: build-check's cuda
# vendor). build-var/var.tar.xz holds vB's cuda and rocm vendors (rebuild them from the
# patched tree if the checkout's ignored build-var/ and build-check/ are gone). (a) the
# embedding test cases and the cuda conformance on vB; the rocm embedding test cases and
# conformance over the HIP-over-CUDA shim with vB's rocm vendor (copied over
# build-check's on the GPU machine only, after the base's runs need it no more); (b) the
# embedding backward A/B, alternating three times; (c) emb_bwd_breakdown.py on vB;
# (d) bench/experiments/shared-dw.patch: the norm stash harness built without and with
# OPK_EXP_SHARED_DW=1 (build-exp/nbs-base, build-exp/nbs-sdw: nvcc -std=c++17 -O3
# -arch=sm_90 -Xptxas -v [-DOPK_EXP_SHARED_DW=1] -I vendors/gpu -o build-exp/nbs-...
# bench/experiments/norm_backward_stash.cu on the patched tree), alternating twice.
# Carry build-check, build-var/var.tar.xz and build-var/exp.tar.xz (build-exp packed).
. bench/device_call.sh r1
dc_variants
tar xJf build-var/exp.tar.xz   # build-exp, carried packed: its two binaries would not fit the carry limit
VB=$PWD/var/vB/libopkit_vendor_cuda.so
hip="$PWD/build-check/tests/hip_on_cuda/hip:$PWD/build-check/tests/hip_on_cuda/hipblaslt:$PWD/build-check/tests/hip_on_cuda/rocblas"
t emb-tests-vB timeout 60 env OPKIT_VENDOR_PATH=$VB build-check/bin/opkit_cuda_tests "ops: embedding*"
cp var/vB/libopkit_vendor_rocm.so build-check/lib/opkit/vendors/libopkit_vendor_rocm.so
t emb-tests-rocm timeout 90 env LD_LIBRARY_PATH=$hip build-check/bin/opkit_rocm_tests "ops: embedding*"
t conformance-vB timeout 100 env OPKIT_VENDOR_PATH=$VB build-check/bin/opkit-conformance --vendor cuda
t conformance-rocm timeout 100 env LD_LIBRARY_PATH=$hip build-check/bin/opkit-conformance --vendor rocm
pack
for i in 1 2 3; do
  dc_ab emb-base-$i base embedding_backward bf16,f16,f32
  dc_ab emb-vB-$i B embedding_backward bf16,f16,f32
done
python3 bench/ab_table.py $R emb-base emb-vB > $R/ab-emb.txt 2>&1
t emb-bwd-bf16-vB timeout 60 env OPKIT_VENDOR_PATH=$VB PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB python3 bench/emb_bwd_breakdown.py --dtype bf16
pack
for i in 1 2; do
  t nbs-base-$i timeout 120 build-exp/nbs-base
  t nbs-sdw-$i timeout 120 build-exp/nbs-sdw
done
pack
cat $R/times.txt $R/ab-emb.txt
grep -h "rms_bwd bf16  8192x16384" $R/nbs-*-1.txt
