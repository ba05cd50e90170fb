#!/usr/bin/env bash
# Twenty-fourth session, call 5, on build-check = call 4's (the forwards' L2 prefetch).
# (a) the fp32 softmax and norm forwards against eager, torch.compile and Liger-Kernel
#     (call 4 had time for bf16 only); (b) rope with the position 4 MB of x ahead
#     prefetched into L2 (var.tar.xz: vrp = this build + that), two rounds against this
#     build, bf16 and fp32.
# Carry build-check, build-var/var.tar.xz, .whl. About 200 s.
. bench/device_call.sh r5
dc_liger
dc_variants
t compare-f32 timeout 70 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes f32 --ops norm_forward,softmax_forward --out $R/compare-f32.json
pack
dc_ab_rounds rope 'rp' rope bf16,f32 2
cat $R/times.txt
cat $R/compare-f32.txt $R/ab-rope.txt
