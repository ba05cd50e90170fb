#!/usr/bin/env bash
# Twenty-third session, call 2 (prepared in the twenty-second): why did racecheck stop in
# layer_norm's f16 pair kernels (bench/experiments/norm-stash-pair-sums-ln.patch, vpln in
# build-var/var.tar.xz; the twenty-second session's r6/check/part-sanitize/)? Three runs
# of the stash test case through vpln: (a) as the check ran it (racecheck instrumenting
# only the fp32 split kernels), again, to see whether it repeats; (b) the same with
# OPKIT_CUDA_DEPENDENT_LAUNCH=0 (the column sums launched plainly); (c) racecheck
# instrumenting every stash kernel, the pairs included (hazards in them, if any, named).
# Carry build-check and build-var/var.tar.xz. About 300 s.
. bench/device_call.sh r2
dc_variants
V=$PWD/var/vpln/libopkit_vendor_cuda.so
F="ops: norm backwards through the stash kernels*"
t race-as-check timeout 150 env OPKIT_VENDOR_PATH=$V compute-sanitizer --tool racecheck --error-exitcode 1 --kernel-name kns=_stash_f32_k2 build-check/bin/opkit_cuda_tests "$F"
pack
t race-no-pdl timeout 150 env OPKIT_VENDOR_PATH=$V OPKIT_CUDA_DEPENDENT_LAUNCH=0 compute-sanitizer --tool racecheck --error-exitcode 1 --kernel-name kns=_stash_f32_k2 build-check/bin/opkit_cuda_tests "$F"
pack
[ $SECONDS -lt 400 ] && t race-all-stash timeout 180 env OPKIT_VENDOR_PATH=$V compute-sanitizer --tool racecheck --error-exitcode 1 --kernel-name kns=_bwd_stash_ build-check/bin/opkit_cuda_tests "$F"
pack
cat $R/times.txt
for f in $R/race-*.txt; do echo "== $f"; grep -h "SUMMARY\|hardware\|Error\|FAILED\|passed" $f | head -8; done
