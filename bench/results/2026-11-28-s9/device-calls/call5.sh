#!/usr/bin/env bash
# Session 2026-11-28 (ninth), device call 5: layer_norm's 2-byte exact backward keeping
# xhat and g as fp32 between its passes (build-gpu) against 8152d07 (build-old), the
# layer_norm backward alone, alternating twice; the four-pack fixed groups at 1280/1536
# resident threads (row_forward_variants, rfv3); conformance on cuda and rocm and the cuda
# tests of build-gpu.
set -u
R=$(mktemp -d); mkdir -p $R/triton
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error TRITON_CACHE_DIR=$R/triton
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r5.tgz --exclude=triton -C $R .; }
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 90 env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops layer_norm_backward --dtypes bf16,f16,f32 --out $R/ab-$b-$i.json
done; pack; done
t rfv3 timeout 60 build-gpu/devrun/rfv3
pack
S=$PWD/build-gpu/tests/hip_on_cuda; HIP=$S/hip:$S/hipblaslt:$S/rocblas
t conformance timeout 90 build-gpu/bin/opkit-conformance --vendor cuda
t rocm-conformance timeout 90 env LD_LIBRARY_PATH=$HIP build-gpu/bin/opkit-conformance --vendor rocm
pack
t cuda-tests timeout 170 build-gpu/bin/opkit_cuda_tests
pack
