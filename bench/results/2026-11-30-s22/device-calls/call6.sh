#!/usr/bin/env bash
# Twenty-second session, call 6, on build-check = 5d05540 + cuda-vendor.md (the landed
# cross-entropy loss sum and dependent rope, layer_norm's pairs of stash blocks, the blas
# vendor's rounding in oneDNN's team, core without TLS descriptors): (a) the whole GPU
# check; (b) the changed ops (layer_norm, cross_entropy, rope) against eager,
# torch.compile and Liger-Kernel, bf16 then fp32, each packed, no new step past 520 s.
# Carry build-check and .whl. About 520 s.
. bench/device_call.sh r6
dc_liger
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
for dt in bf16 f32; do
  [ $SECONDS -gt 520 ] && break
  t compare-$dt timeout 110 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --ops layer_norm,cross_entropy,rope --out $R/compare-$dt.json
  pack
done
cat $R/times.txt
tail -5 $R/check-split.txt
