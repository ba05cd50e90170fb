#!/usr/bin/env bash
# Twenty-third session, call 3: is call 2's "Sanitizer failed to handle a hardware
# exception" a fault of layer_norm's pair kernels, or racecheck running any kernel that
# uses distributed shared memory without instrumenting it? Call 2 found: with the pair
# kernels instrumented (kns=_bwd_stash_) racecheck reports 0 hazards and the case passes;
# left native (kns=_stash_f32_k2, as the check runs it) the first f16 pair launch faults,
# with or without the dependent launch. (a) HEAD (build-check), whose only
# distributed-shared-memory kernels in the case are the fp32 _k2 kernels: racecheck
# instrumenting the 2-byte stash kernels only, so that the _k2 kernels run natively.
# (b) vpln under memcheck instrumenting only the _k2 kernels (the pairs native under
# another tool). (c) vpln with no tool, the case three times (native, as the tests run it).
# Carry build-check and build-var/var.tar.xz. About 150 s.
. bench/device_call.sh r3
dc_variants
V=$PWD/var/vpln/libopkit_vendor_cuda.so
F="ops: norm backwards through the stash kernels*"
t race-head-k2-native timeout 150 compute-sanitizer --tool racecheck --error-exitcode 1 --kernel-name kns=_bwd_stash_bf16 build-check/bin/opkit_cuda_tests "$F"
pack
t memcheck-pairs-native timeout 150 env OPKIT_VENDOR_PATH=$V compute-sanitizer --tool memcheck --error-exitcode 1 --kernel-name kns=_stash_f32_k2 build-check/bin/opkit_cuda_tests "$F"
pack
for i in 1 2 3; do t native-$i timeout 60 env OPKIT_VENDOR_PATH=$V build-check/bin/opkit_cuda_tests "$F"; done
pack
cat $R/times.txt
for f in $R/*.txt; do echo "== $f"; grep -h "SUMMARY\|hardware\|Error\|FAILED\|passed\|with message" -A1 $f | head -10; done
