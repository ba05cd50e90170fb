#!/usr/bin/env bash
# Prepared in the thirty-first session for the next one (not run: no device time was left).
# vearly = bench/experiments/norm-stash-hold-early.patch built with OPK_EXP_HOLD_EARLY=1: the
# 2-byte exact stash backwards all hold the row in registers (norm_stash_hold_row's
# measured form, for every dtype and config) and refill row j's slot with row j + slots as
# soon as the thread has read its packs of row j out of it (RowRingAhead: every slot
# requested up front; RowRing refills a row later, at the start of row j + 1). With the row
# held, a slot is free a whole row earlier, so two rows' copies are in flight while a row
# is worked on, not one. Why: f16 and bf16 converged on the same floor at 4096x16384 with
# the held rows (0.111-0.113 ms, call 4), and the thirtieth session's refill pack by pack
# (a few packs earlier, not a row) measured nothing. ptxas: rms_norm s2 128 registers, no
# spill; layer_norm's s2 128 with 24-32 bytes of stack (a spill: expect it slower there).
# Its stash and norm test cases, then three A/B rounds against build-check (HEAD's
# vendor: held rows for f16 and bf16 layer_norm at rows of 4096 / 8192 only). Carry
# build-check, build-var (vearly; rebuild it from the patch if gone: set the define to 1,
# `ninja -C build-gpu vendors/cuda/all`, copy the .so to /tmp/varE/vearly, `tar cJf
# build-var/var.tar.xz -C /tmp/varE vearly`, `git checkout vendors`). About 220 s.
# If rows of 16384 gain: the landing form (norm_stash_hold_row's rule and RowRingAhead for
# the held kernels), the spill check, the whole GPU check (racecheck included).
. bench/device_call.sh r2
dc_variants
dc_cuda_tests early-stash-tests "ops: norm backwards through the stash kernels*" early
pack
dc_cuda_tests early-norm-tests "ops: rms_norm*,ops: layer_norm*" early
pack
dc_ab_rounds early early norm_backward bf16,f16 3
cat $R/times.txt $R/ab-early.txt; tail -n 3 $R/early-*-tests.txt
