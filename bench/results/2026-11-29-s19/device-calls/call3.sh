#!/usr/bin/env bash
# Nineteenth session, call 3: the embedding backward's write step against write-only floors
# and other launch shapes (bench/experiments/embedding_write_variants.cu, built on the build
# VM: nvcc -std=c++17 -O3 -arch=sm_90 -I vendors/gpu -o build-exp/ewv ...), twice.
. bench/device_call.sh r3
t ewv-1 timeout 200 build-exp/ewv
t ewv-2 timeout 200 build-exp/ewv
pack
cat $R/times.txt $R/ewv-1.txt $R/ewv-2.txt
