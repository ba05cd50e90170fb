#!/usr/bin/env bash
# Thirtieth session, call 4, on build-check (aeee5ba's build; its stash kernels are HEAD's
# but for layer_norm's fp32 split ones' 512 KB, which vearly has). vearly =
# bench/experiments/norm-bwd-early-refill.patch (OPK_EXP_EARLY_REFILL): each thread of a
# norm stash backward asks for its pack of row j + slots into row j's slot as soon as it
# has written that pack's dx, instead of at the start of row j + 1. Three A/B rounds, the
# norm backwards bf16 and fp32; the stash test case where a row gained 1 %. Carry
# build-check, build-var. About 150-230 s.
. bench/device_call.sh r4
dc_variants
dc_ab_rounds early early norm_backward bf16,f32 3
cat $R/times.txt $R/ab-early.txt
if awk '$NF+0 > 0 && $NF+0 < 0.99 {found=1} END {exit !found}' $R/ab-early.txt; then
  t early-stash-tests timeout 150 env OPKIT_VENDOR_PATH=$PWD/var/vearly/libopkit_vendor_cuda.so build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
  pack
  tail -n 3 $R/early-stash-tests.txt
fi
