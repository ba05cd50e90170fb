#!/usr/bin/env bash
# Forty-eighth session, call 1: the forty-seventh session's prepared-next-call-1.sh as run
# (bench/results/2026-12-02-s47/device-calls/), unchanged below its first line; the packed
# builds of that session (build-var/var.tar.xz: vlines, vnoagg; check.tar.xz: 0eb9fe0) carried.
# Prepared in the forty-seventh session, not run (its device time was spent). Two variants:
#  - "lines" (bench/experiments/stash-ring-128-lines.patch): the dynamic shared memory of the
#    norm kernels (norm_columns) and of cross-entropy's stash forward 128-byte aligned. On
#    sm_90 five fp32 norm stash kernels have their ring off a 128-byte line today (the split
#    pairs opk_*_bwd_stash_f32_k2* at 0x810, the bulk ring's opk_rms_bwd_stash_f32_s2_exact
#    at 0x840) and cross-entropy's stash forwards at 0x620; call 5 measured what 16 bytes
#    off a line cost the 2-byte kernels (twice the L2 sectors a copy). Every other kernel's
#    static size is whole lines already (cuobjdump: unchanged). A/B on fp32 norms (their
#    rows of 8192 and 16384 use those kernels) and cross-entropy.
#  - "noagg" (norm-stash-counted-rows-noagg.patch, which includes "lines"): counted rows with
#    thread 0's counter an atom.inc that ptxas does not warp-aggregate (take_row; call 5 had
#    the aggregated atomic's SHFL.IDX stall warp 0 every row while the block waited at the
#    barrier), the first rows through taken[2..3] (no race with row 0's write), counted
#    only with two ring slots and below 2^30 rows. On the build VM its SASS has a plain
#    ATOMG.E.INC and no SHFL.IDX/FLO in opk_rms_bwd_stash_bf16_s1_exact, every stash
#    kernel's ring at 0x880; check-cuda-spills fails for layer_norm's 2-byte s2 pairs (bf16
#    48 bytes of stack against a budget of 24, f16 64 against 8, f16 exact 8 against 0):
#    what that costs is in the A/B at 4096x16384. A/B on the 2-byte norms, the stash tests
#    and racecheck of its counted bf16 s1 kernels, then Nsight Compute of base and the
#    variant at 8192x8192 as call 5.
# Builds: bench/prepare_device_builds.sh check (or the packed one); then
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant lines bench/experiments/stash-ring-128-lines.patch
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant noagg bench/experiments/norm-stash-counted-rows-noagg.patch
#   bench/prepare_device_builds.sh pack
# Carry build-var.
. bench/device_call.sh r1
cat build-check/HEAD.txt
dc_variants
cat var/vlines/VARIANT.txt var/vnoagg/VARIANT.txt
dc_ab_rounds lines lines rms_norm,layer_norm,cross_entropy f32,bf16 3
cat $R/ab-lines.txt
dc_ab_rounds norms noagg rms_norm,layer_norm bf16,f16 3
cat $R/ab-norms.txt
dc_cuda_tests noagg-stash-tests "ops: norm backwards through the stash kernels*" noagg
tail -n 3 $R/noagg-stash-tests.txt
t noagg-racecheck timeout 240 env OPKIT_VENDOR_PATH="$PWD/var/vnoagg/libopkit_vendor_cuda.so" \
    compute-sanitizer --tool racecheck --error-exitcode 1 --kernel-name kns=_bwd_stash_bf16_s1 \
    build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
tail -n 5 $R/noagg-racecheck.txt
pack
for v in base noagg; do
    dc_ncu_source ncu "$v" opk_rms_bwd_stash --ops norms --dtype bf16 --row-shapes 8192x8192
done
cat $R/times.txt
