#!/usr/bin/env bash
# Nineteenth session, call 5: opk_emb_bwd_write_ids on a group for every position (vA:
# group_grid(..., per_sm 0), the host change alone) against 9a95bdc's walk over at most 16
# blocks an SM (base: build-check's cuda vendor). (a) the embedding test cases and the cuda
# conformance on vA, the rocm embedding test cases and rocm conformance over the
# HIP-over-CUDA shim with vA's host code (build-check's rocm vendor rebuilt so);
# (b) the embedding backward A/B, alternating three times; (c) emb_bwd_breakdown.py on vA.
. bench/device_call.sh r5
dc_variants
VA=$PWD/var/vA/libopkit_vendor_cuda.so
hip="$PWD/build-check/tests/hip_on_cuda/hip:$PWD/build-check/tests/hip_on_cuda/hipblaslt:$PWD/build-check/tests/hip_on_cuda/rocblas"
t emb-tests-vA timeout 60 env OPKIT_VENDOR_PATH=$VA build-check/bin/opkit_cuda_tests "ops: embedding*"
t emb-tests-rocm timeout 90 env LD_LIBRARY_PATH=$hip build-check/bin/opkit_rocm_tests "ops: embedding*"
t conformance-vA timeout 100 env OPKIT_VENDOR_PATH=$VA build-check/bin/opkit-conformance --vendor cuda
t conformance-rocm timeout 150 env LD_LIBRARY_PATH=$hip build-check/bin/opkit-conformance --vendor rocm
pack
for i in 1 2 3; do
  dc_ab emb-base-$i base embedding_backward bf16,f16,f32
  dc_ab emb-vA-$i A embedding_backward bf16,f16,f32
done
python3 bench/ab_table.py $R emb-base emb-vA > $R/ab-emb.txt 2>&1
t emb-bwd-bf16-vA timeout 60 env OPKIT_VENDOR_PATH=$VA PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB python3 bench/emb_bwd_breakdown.py --dtype bf16
pack
cat $R/times.txt $R/ab-emb.txt
