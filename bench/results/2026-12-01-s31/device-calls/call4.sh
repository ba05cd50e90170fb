#!/usr/bin/env bash
# Call 4: vhold2, the 2-byte norm stash backwards holding the thread's packs of the row in
# registers (OPK_EXP_HOLD_ROW=2 in norms.cu: loaded out of the ring's slot once, every load
# before the first use, both passes from registers; rms_norm and layer_norm): call 2's
# Nsight Compute showed the stash kernels' warps waiting on shared memory most (short
# scoreboard 2.9 of 7.9 cycles an instruction at bf16 4096x16384) with half the issue
# slots idle. ptxas: rms_norm's s2 96 -> 128 registers, s0/s1 89 -> 100, layer_norm's
# s0/s1 116 -> 121 (f16 127), no spill. Its stash and norm test cases, then three A/B
# rounds of the norm backwards against build-check. Carry build-check, build-var. ~300 s.
. bench/device_call.sh r4
dc_variants
vp=$PWD/var/vhold2/libopkit_vendor_cuda.so
t hold-stash-tests timeout 200 env OPKIT_VENDOR_PATH=$vp build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
pack
t hold-norm-tests timeout 250 env OPKIT_VENDOR_PATH=$vp build-check/bin/opkit_cuda_tests "ops: rms_norm*,ops: layer_norm*"
pack
dc_ab_rounds hold hold2 norm_backward bf16,f16 3
cat $R/times.txt $R/ab-hold.txt; tail -n 3 $R/hold-*-tests.txt
