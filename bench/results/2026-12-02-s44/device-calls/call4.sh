#!/usr/bin/env bash
# The forty-fourth session, call 4. Call 3 found call 2's vmdim gains inside the kernels
# (CUPTI: the bf16 softmax forward at 4096x16384 65.95 -> 65.4 us) where the SASS was the
# same but for the parameters' constant-bank offsets: the few values a flat-row kernel
# reads (each view's data, nd, vec and stride[0]; rows, n, exact) spread over six 64-byte
# lines of the 984-byte constant bank against three under vmdim. vhot =
# bench/experiments/hot-params-first.patch: no size changed, RowsView's data, nd, vec and
# stride[] first and every Args struct's scalars before its views (the fixed-group
# kernels' SASS the same but for those offsets; the generic ones reordered). Does the
# layout alone give vmdim's gains, without vmdim's limit of two dimensions?
# Builds: bench/prepare_device_builds.sh check (a4ad587);
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant hot bench/experiments/hot-params-first.patch
#   bench/prepare_device_builds.sh pack. Carry build-var.
. bench/device_call.sh r4
dc_variants
cat build-check/HEAD.txt
dc_ab_rounds hot hot softmax_forward,rms_norm_forward,layer_norm_forward,softmax_backward,swiglu_forward,geglu_backward,embedding_forward bf16 3
dc_ab_rounds hot32 hot softmax_forward,layer_norm_forward,softmax_backward f32 2
cat $R/times.txt $R/ab-hot.txt $R/ab-hot32.txt
pack
