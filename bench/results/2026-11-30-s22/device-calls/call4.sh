#!/usr/bin/env bash
# Prepared in the twenty-first session for the next one: vrope (bench/experiments/
# rope-dependent-launch.patch on bbf5f8e: rope's kernels launched dependent, waiting at
# their entry), cuda and rocm vendors in build-var/var.tar.xz. (a) the rope test cases on
# cuda through vrope and on rocm over the shim, conformance of both; (b) rope, bf16, f16 and
# fp32, three rounds alternating against build-check's own vendor (bbf5f8e), each run
# packed: only the q+k rows (two calls back to back) can gain; the single-call rows are
# the control (expected 1.000); (c) bench/kernel_breakdown.py of vrope's bf16 rope. Carry
# build-check and build-var/var.tar.xz. About 250 s.
. bench/device_call.sh r4
dc_variants
V=$PWD/var/vrope/libopkit_vendor_cuda.so
dc_tests vrope "ops: rope*" rope
pack
dc_ab_rounds rope rope rope bf16,f16,f32 3
t kb-rope timeout 100 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$V python3 bench/kernel_breakdown.py --dtypes bf16 --ops rope
pack
cat $R/times.txt $R/ab-rope.txt
grep -h "call " $R/kb-rope.txt
