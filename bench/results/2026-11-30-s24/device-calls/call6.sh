#!/usr/bin/env bash
# Twenty-fourth session, call 6, on build-check = call 4's build + rope's 2-byte kernels
# prefetching the position 4 MB of x ahead into L2 (the landed code; the forwards' kernels
# byte-identical to call 4's) and two rope test cases past that distance.
# (a) the rope cases on cuda and on rocm over the HIP-over-CUDA shim, conformance of both;
# (b) rope against eager, torch.compile and Liger-Kernel, bf16 then fp32.
# Carry build-check, .whl. About 200 s.
. bench/device_call.sh r6
dc_liger
dc_tests rope 'ops: rope*'
pack
for dt in bf16 f32; do
  t compare-$dt timeout 70 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --ops rope --out $R/compare-$dt.json
  pack
done
cat $R/times.txt
tail -3 $R/rope-tests.txt $R/rope-tests-rocm.txt $R/rope-conformance.txt $R/rope-conformance-rocm.txt
cat $R/compare-bf16.txt $R/compare-f32.txt
