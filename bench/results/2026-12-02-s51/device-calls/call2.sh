#!/usr/bin/env bash
# The fifty-first session's call 2 (prepared in the fiftieth): the second call of prepared-next-call-1.sh's
# pair (see there), two questions that session's results left:
#  - the embedding forward with 8-byte words (efa's words8 lines): does the gather gain as
#    the gated backwards did?
#  - elementwise_layouts.cu with the library's half-pack body as a kernel of its own and
#    the forwards: the harness's one 8-byte access a thread (no loop) measured 0.996 on the
#    bf16 geglu(tanh) backward and the library's looped form 1.007-1.011, and the forwards
#    were 1.04-1.10 slower in the library: is it the body or the width?
# Builds on the build VM:
#   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o build-var/efa bench/experiments/embedding_forward_ahead.cu
#   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o build-var/ewl bench/experiments/elementwise_layouts.cu
# Carry build-var.
. bench/device_call.sh r2
t efa build-var/efa
cat $R/efa.txt
pack
t ewl build-var/ewl
cat $R/ewl.txt
cat $R/times.txt
pack
