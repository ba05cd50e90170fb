#!/usr/bin/env bash
# Prepared in the twenty-seventh session for the next one (not run: the session's device
# time was spent). Question: in the norm forwards' output pass each pack's weight (and
# bias) load issues only after the previous pack's store (a load may not move above a store
# that may alias it), so a row pays its column loads' latency pack after pack after its
# reductions; the kernels are latency-bound (bf16 layer_norm fixed g512: 53 % issue slots
# busy, long-scoreboard stalls first). bench/experiments/norm-fwd-columns-ahead.patch loads
# pack i + 1's weight before pack i's store (layer_norm: the weight only, the bias ahead too
# spilled 16 bytes); compiled on the build VM: no spills (check-cuda-spills within budget),
# layer_norm bf16 fixed 64 registers, rms_norm bf16 fixed 48 -> 56, the SASS order
# w0 w1 b0 st0 w2 b1 st1 ... as meant; the AMD code-object gate passes with it (all six
# targets, scripts/hip-device-compile.sh).
# Build first, on the build VM (about 3 minutes), from the tree the patch applies to:
#   git apply bench/experiments/norm-fwd-columns-ahead.patch
#   ninja -C build-gpu -j2 && ninja -C build-gpu -j2 vendors/cuda/all vendors/rocm/all
#   rm -rf /tmp/varX && mkdir -p /tmp/varX/vahead && \
#     cp build-gpu/lib/opkit/vendors/libopkit_vendor_{cuda,rocm}.so /tmp/varX/vahead/ && \
#     tar cJf build-var/var.tar.xz -C /tmp/varX vahead
#   git checkout vendors/gpu/norms.cu   # and rebuild build-check from the clean tree
# Carry build-check (HEAD's build), build-var. About 250 s.
. bench/device_call.sh r1
dc_variants
dc_ab_rounds fwd 'ahead' norm_forward bf16,f32 2
dc_tests vahead "ops: layer_norm*,ops: rms_norm*" ahead
pack
cat $R/times.txt
cat $R/ab-fwd.txt
tail -3 $R/vahead-tests.txt $R/vahead-tests-rocm.txt
tail -n 1 $R/vahead-conformance.txt $R/vahead-conformance-rocm.txt
