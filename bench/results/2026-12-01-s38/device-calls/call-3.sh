#!/usr/bin/env bash
# Call 3 of the thirty-eighth session: bench/experiments/norm_forward_lean.cu with its new
# twiceH lines (rms_norm as Inductor writes it: no row held, the sum of squares over x read
# with L2 evict_last, x read again evict_first and the weight a row; 27-32 registers, no
# spills at 2048 resident threads), built on the build VM
# (nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o build-var/nfl bench/experiments/norm_forward_lean.cu)
# and carried; three times, for the spread (the first run, cut off in the call's output, was repeated with pack). The fp32 rms_norm forward trails torch.compile by
# 1.3-1.9 % at 32768x4096 (Inductor's kernel 58.6 warps an SM at 28 registers).
. bench/device_call.sh r3
t norm-lean-1 timeout 200 build-var/nfl
t norm-lean-2 timeout 200 build-var/nfl
t norm-lean-3 timeout 200 build-var/nfl
pack
cat $R/times.txt
grep -h "rms_fwd" $R/norm-lean-*.txt | grep -E "library|twiceH" | grep -E "f32 +32768|bf16 +8192" 
