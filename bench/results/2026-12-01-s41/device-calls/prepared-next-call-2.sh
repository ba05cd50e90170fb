#!/usr/bin/env bash
# Prepared in the forty-first session for the next one (not run). Call 5 of that session
# (kernel_breakdown.py --behind-spin, events and CUPTI kernels of the same calls) found
# opkit's fp32 rms_norm forward at 8192x8192 and bf16 softmax backward with 0.6-0.8 us more
# outside their kernels than Inductor's (0.2-0.35 us of it before the kernel starts), while
# its swiglu and embedding forwards and the rms_norm forward at its other shapes had no more
# than Inductor's. Which of opkit's kernels have it, across every row short of a peer (the
# standing table's bold rows), to correlate with their launch configuration (block, grid,
# registers, shared memory: bench/sass_static.py reads the last three here):
# about 250 s with the machine's start. Builds: bench/prepare_device_builds.sh check; pack.
# Carry build-var, .whl.
. bench/device_call.sh r2
dc_liger
dc_breakdown kb-norm-fwd-bf16 --calls 30 --ops rms_norm_forward,layer_norm_forward --dtypes bf16
dc_breakdown kb-norm-fwd-f32 --calls 30 --ops layer_norm_forward --dtypes f32
dc_breakdown kb-softmax-f32 --calls 30 --ops softmax_forward,softmax_backward --dtypes f32
dc_breakdown kb-softmax-fwd-bf16 --calls 30 --ops softmax_forward --dtypes bf16
dc_breakdown kb-gated-bwd --calls 30 --ops swiglu_backward,geglu_backward --dtypes bf16,f32
dc_breakdown kb-embedding-bf16 --calls 30 --ops embedding_forward --dtypes bf16
cat $R/times.txt
grep -h "same calls\|: call" $R/kb-*.txt
