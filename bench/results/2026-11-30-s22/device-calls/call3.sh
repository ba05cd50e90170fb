#!/usr/bin/env bash
# Prepared in the twenty-first session for the next one: vpair (bench/experiments/
# norm-stash-pair-sums.patch on bbf5f8e: the 2-byte norm stash backwards in clusters of
# two blocks that add their column sums before writing them, one partial row a pair).
# (a) the norm test cases on cuda through vpair (and on rocm over the shim, whose vendor
# is unchanged), conformance of both; (b) the norm backwards, bf16 and f16, three rounds
# alternating against build-check's own vendor (bbf5f8e), each run packed at once; (c)
# bench/kernel_breakdown.py of vpair's bf16 norm backwards (the column sums were 3.1 us a
# gradient at 4096x16384). Carry build-check and build-var/var.tar.xz. About 420 s: the
# norm test step takes 130-250 s.
. bench/device_call.sh r3
dc_variants
V=$PWD/var/vpair/libopkit_vendor_cuda.so
dc_tests vpair "ops: rms_norm*,ops: layer_norm*,ops: norm backwards*" pair
pack
dc_ab_rounds nb pair rms_norm_backward,layer_norm_backward bf16,f16 3
t kb-nb timeout 100 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$V python3 bench/kernel_breakdown.py --dtypes bf16 --ops rms_norm_backward,layer_norm_backward
pack
cat $R/times.txt $R/ab-nb.txt
grep -h "call \|column_sum" $R/kb-nb.txt
