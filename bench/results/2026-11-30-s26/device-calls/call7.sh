#!/usr/bin/env bash
# Twenty-sixth session, call 7, on build-check = 0c30f67. The stash copies (cp.async, every
# stash kernel) with an L2 prefetch size: vp256 = .L2::256B, vp128 = .L2::128B
# (bench/experiments/stash-copies-l2-prefetch-{256,128}b.patch; SASS LDGSTS...LTC128B).
# The stash backwards' L2 hit rate is 34-37 % on data read once (calls 2, 3): does asking
# L2 for whole lines help them, or cross-entropy's? Two rounds each.
# Carry build-check, build-var. About 260 s.
. bench/device_call.sh r7
dc_variants
dc_ab_rounds p256 'p256' norm_backward bf16,f32 2
dc_ab_rounds p128 'p128' norm_backward bf16,f32 2
dc_ab_rounds cep 'p256' cross_entropy bf16 2
cat $R/times.txt
cat $R/ab-p256.txt $R/ab-p128.txt $R/ab-cep.txt
