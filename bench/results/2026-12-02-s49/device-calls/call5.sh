#!/usr/bin/env bash
# The forty-ninth session's call 5: where the call's time outside its kernel comes from.
# Call 3's breakdown of the bf16 rms_norm forward at 8192x8192 had opkit's kernel span
# 0.27 us longer than Inductor's but its events 0.8 us longer: its lead from the spin's end
# to its kernel 0.27 us longer, and the events beyond the span 0.62 us more (the earlier
# sessions' breakdowns found the same on some kernels and not on others). Here the same
# breakdown for five ops with every implementation beside opkit, torch's own copy of the
# case's bytes (kernel_breakdown's new "copy") and eager among them: whether a long lead
# and tail follow opkit's kernels, or kernels of a large module (libtorch's too), or neither.
# build-check = 2e686e4. Carry build-var and .whl.
. bench/device_call.sh r5
cat build-check/HEAD.txt
dc_liger
t kb-leads dc_peers timeout 400 python3 bench/kernel_breakdown.py --impls opkit,eager,compile,liger,copy \
    --behind-spin --calls 30 --dtypes bf16 \
    --ops rms_norm_forward,softmax_forward,softmax_backward,embedding_forward,swiglu_forward --shapes 8192x8192,V128256
pack
cat $R/times.txt
grep -v Warning $R/kb-leads.txt | grep -v _warn_once
