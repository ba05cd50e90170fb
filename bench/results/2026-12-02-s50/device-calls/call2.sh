#!/usr/bin/env bash
# The fiftieth session's call 2: the gated backwards under other thread layouts
# (bench/experiments/elementwise_layouts.cu, built on the build VM into build-var/ewl:
# nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v), each call timed behind a spin as
# gpu_compare.py does: fp32 at 32768x4096, bf16 at 8192x8192, swiglu and geglu(tanh).
# Carry build-var.
. bench/device_call.sh r2
t ewl build-var/ewl
cat $R/ewl.txt
cat $R/times.txt
pack
