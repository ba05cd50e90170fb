#!/usr/bin/env bash
# vdense: fp32 rope through a dense kernel (one thread a pair of packs, two pairs a
# thread, 256-thread blocks over every pair, 60 registers: four blocks an SM), for x and y
# contiguous [B,T,H,D]; the q+k call likewise (opk_rope_qk_dense_f32). Its rope test cases
# and conformance, three A/B rounds against build-check (f32 rope, q+k included), then
# opkit (base, vdense) against torch.compile and Liger in one process each.
# Carry build-check, build-var (vdense), .whl.
. bench/device_call.sh r2
dc_variants
dc_liger
dc_cuda_tests dense-rope-tests "ops: rope*" dense
pack
t dense-conformance timeout 100 env OPKIT_VENDOR_PATH=$PWD/var/vdense/libopkit_vendor_cuda.so build-check/bin/opkit-conformance --vendor cuda
pack
dc_ab_rounds dense dense rope f32 3
cmp() {  # NAME VENDOR_PATH
  t "$1" timeout 150 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor \
    OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH="$2" python3 bench/gpu_compare.py --impls opkit,compile,liger --ops rope --dtypes f32 --out "$R/$1.json"
  pack
}
cmp compare-rope-vdense $PWD/var/vdense/libopkit_vendor_cuda.so
cmp compare-rope-base ""
cat $R/times.txt $R/ab-dense.txt; tail -n 3 $R/dense-rope-tests.txt $R/dense-conformance.txt; grep -i "rope" $R/compare-rope-*.txt | head -40
