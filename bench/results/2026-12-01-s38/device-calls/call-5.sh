#!/usr/bin/env bash
# Call 5 of the thirty-eighth session: the twice-read shape that won for rms_norm (fd71ab9)
# tried on the other two forwards, in their lean harnesses (built on the build VM and
# carried in build-var/):
#   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o build-var/nfl bench/experiments/norm_forward_lean.cu
#   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o build-var/sfl bench/experiments/softmax_forward_lean.cu
# layer_norm's twiceH lines: each thread's exact (mean, m2) merged pairwise in one reduction,
# x read again evict_first with weight and bias a row (bf16/fp32 512 x 2: 31-32 registers);
# softmax's: each thread's (max, sum of exp) merged online in one reduction, x read again
# (bf16 512 x 2: 29 registers). Twice each, for the spread.
. bench/device_call.sh r5
t norm-lean-1 timeout 200 build-var/nfl
t norm-lean-2 timeout 200 build-var/nfl
t sm-lean-1 timeout 200 build-var/sfl
t sm-lean-2 timeout 200 build-var/sfl
pack
cat $R/times.txt
grep -h "ln_fwd" $R/norm-lean-*.txt | grep -E "library|twiceH.* all" | sort -k2,3 -s
grep -h "softmax_fwd" $R/sm-lean-*.txt | grep -E "library|twiceH|lean B512 C2 R2048" | sort -k2,3 -s
