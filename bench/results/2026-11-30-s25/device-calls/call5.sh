#!/usr/bin/env bash
# Twenty-fifth session, call 5: the steps of call 4's whole GPU check that its rocm part
# did not reach (call 4 lowered the part limit to 440 s; rocm-tests passed at 58335
# assertions, then the part was stopped inside rocm-conformance), on the same build-check.
# Carry build-check. About 40 s.
. bench/device_call.sh r5
( export OUT=$R/check OPKIT_GPU_CHECK_ONLY='^(rocm-conformance|rocm-rocblas-matmul|tiny_lm-rocm)$'; t check-rest scripts/gpu-check.sh build-check )
pack
cat $R/times.txt
grep -v SKIPPED $R/check-rest.txt | tail -n 12
