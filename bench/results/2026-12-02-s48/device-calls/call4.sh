#!/usr/bin/env bash
# Forty-eighth session, call 4: the landing (ef72821: rms_norm's 2-byte twice kernels ask
# L2 for the row 4 MB ahead; 2-byte rows of 16384 read twice at 512 x 4, one block a row)
# as build-check. Old against new, three rounds of the rms_norm forward in bf16 and f16
# (variant "old": old-twice.patch, the landing's vendors reversed, cuda vendor only; ratio
# old / new); the rms_norm and layer_norm cases on cuda and rocm over HIP-over-CUDA and both
# conformance runs on the landed build; memcheck of the twice kernels. Not the whole GPU
# check: a refused start had cost 120 s, and the 612 s left could not hold a start and the
# check (390-490 s).
# Builds: bench/prepare_device_builds.sh check; OPKIT_PREPARE_ROCM=0
#   bench/prepare_device_builds.sh variant old bench/results/2026-12-02-s48/device-calls/old-twice.patch;
#   bench/prepare_device_builds.sh pack. Carry build-var.
. bench/device_call.sh r4
cat build-check/HEAD.txt
dc_variants
cat var/vold/VARIANT.txt
dc_ab_rounds old old rms_norm_forward bf16,f16 3
cat $R/ab-old.txt
dc_tests norms "ops: rms_norm*,ops: layer_norm*"
t twice-memcheck timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 --kernel-name kns=fwd_twice \
    build-check/bin/opkit_cuda_tests "ops: rms_norm*"
for f in norms-tests norms-tests-rocm norms-conformance norms-conformance-rocm twice-memcheck; do
    echo "== $f"; tail -n 3 $R/$f.txt
done
cat $R/times.txt
pack
