#!/usr/bin/env bash
# Twenty-fourth session, call 4, on build-check = HEAD + the fixed-group forwards' bulk L2
# prefetch of the row 4 MB of rows ahead (calls 1-2: vpfB; the landed code).
# (a) the whole GPU check; (b) the softmax backward's exact kernels prefetching dy and y
#     rows 4 MB of both ahead (var.tar.xz: vsbw = this build + that), two rounds against
#     this build; (c) the softmax and norm forwards against eager, torch.compile and
#     Liger-Kernel, bf16 then fp32, if time is left.
# Carry build-check, build-var/var.tar.xz, .whl. About 560 s.
. bench/device_call.sh r4
dc_liger
dc_variants
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
dc_ab_rounds sbw 'sbw' softmax_backward bf16,f32 2
for dt in bf16 f32; do
  [ $SECONDS -gt 500 ] && break
  t compare-$dt timeout 70 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --ops norm_forward,softmax_forward --out $R/compare-$dt.json
  pack
done
cat $R/times.txt
tail -5 $R/check-split.txt
cat $R/ab-sbw.txt
