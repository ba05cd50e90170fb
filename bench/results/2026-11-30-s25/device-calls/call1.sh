#!/usr/bin/env bash
# Prepared in the twenty-fourth session for the next one. build-check = 5c51766's build
# (HEAD's vendor code: later commits change comments and docs only). Variants in
# build-var/var.tar.xz, each HEAD's code plus one change:
#   vlnw: the fixed-group norm forwards ask L1 for their weight (and bias) packs right after
#         their x loads (bench/experiments/norm-fwd-param-l1-prefetch.patch): layer_norm's
#         forward is the bf16 forward furthest from the copy bandwidth (0.875 at 8192x8192);
#   vd3 / vd6: kRowPrefetchAheadBytes 3 MB / 6 MB instead of 4 (the twenty-fourth session
#         measured 1, 2, 4 and 8.4 MB: 4 best, 8.4 mixed), the forwards and bf16 rope;
#   vs3:  the fp32 norm stash backwards split over a cluster (rows of 16384, 0.78-0.79 of
#         copy) ring three rows instead of two (bench/experiments/norm-split-three-slots.patch).
# Two rounds each against the base.
# Carry build-check, build-var/var.tar.xz, .whl. About 400 s.
. bench/device_call.sh r1
dc_liger
dc_variants
dc_ab_rounds lnw 'lnw' norm_forward bf16,f32 2
dc_ab_rounds d3 'd3' norm_forward,softmax_forward,rope bf16,f32 2
dc_ab_rounds d6 'd6' norm_forward,softmax_forward,rope bf16,f32 2
dc_ab_rounds s3 's3' norm_backward f32 2
cat $R/times.txt
cat $R/ab-lnw.txt $R/ab-d3.txt $R/ab-d6.txt $R/ab-s3.txt
