#!/usr/bin/env bash
# Thirty-first session, call 7: vnofs, f16 layer_norm forwards through the fixed-group
# kernels (as bf16) instead of the ring (ln_stash_forward_plan declines with
# OPK_EXP_NO_LN_FWD_STASH=1): call 6 measured f16 layer_norm forward 0.0780 / 0.0729 ms at
# 8192x8192 / 4096x16384 against bf16's 0.0700 / 0.0700 through the fixed-group kernels,
# which have asked L2 for rows ahead since the twenty-fourth session (the ring was chosen
# in the thirteenth). Three A/B rounds against build-check (the variable means nothing to
# it). Carry build-check, build-var. About 90 s.
. bench/device_call.sh r7
dc_variants
export OPK_EXP_NO_LN_FWD_STASH=1
dc_ab_rounds nofs nofs layer_norm_forward f16,bf16 3
cat $R/times.txt $R/ab-nofs.txt
