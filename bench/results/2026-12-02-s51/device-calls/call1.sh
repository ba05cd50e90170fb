#!/usr/bin/env bash
# The fifty-first session's call 1 (prepared in the fiftieth): what that session owed and one question.
#  - The whole GPU check on HEAD (the fiftieth session's landing 6027a3d, the dense swiglu
#    backward and fp32 geglu(tanh) backward at 8 bytes a thread: its call 4 reached the
#    device tool's 600 s limit inside the check). Run it first and alone in its call.
#  - Then (a second call on the warm machine) bench/experiments/embedding_forward_ahead.cu
#    with its words8 lines: does the gather take 8-byte words faster, as the gated
#    backwards did? (efa, built on the build VM into build-var/efa:
#    nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o build-var/efa bench/experiments/embedding_forward_ahead.cu)
# Builds: bench/prepare_device_builds.sh check; bench/prepare_device_builds.sh pack. Carry build-var.
. bench/device_call.sh r1
cat build-check/HEAD.txt
dc_check
cat $R/times.txt
pack
