#!/usr/bin/env bash
# The fifty-first session's call 4: the whole GPU check on 9162bd8 (the dense 8-byte
# element-wise kernels straight-line, the 2-byte geglu(tanh) backward moved to them; the
# new test cases of views 4, 8 and 16 bytes off a 16-byte boundary run here for the first
# time), alone in its call.
# Builds: bench/prepare_device_builds.sh check; bench/prepare_device_builds.sh pack. Carry build-var.
. bench/device_call.sh r4
cat build-check/HEAD.txt
dc_check
cat $R/times.txt
pack
