#!/usr/bin/env bash
# Prepared in the forty-seventh session, not run (its device time was spent): counted rows
# in the norm stash backwards with thread 0's counter an atom.inc that ptxas does not
# warp-aggregate (bench/experiments/norm-stash-counted-rows-noagg.patch, variant "noagg":
# call 6's aligned ring, plus take_row). Call 5's profile had ptxas's aggregation (a
# SHFL.IDX of the ATOMG's result right after it) stall warp 0 on the atomic's round trip
# every row while the block's other warps waited at the row's barrier (barrier stall samples
# 1154 -> 4646); with atom.inc bounded by 2^31 - 1 the SASS has a plain ATOMG.E.INC whose
# result is first used a row later (checked with cuobjdump on the build VM). Three rounds of
# A/B on the 2-byte types, the stash tests, then Nsight Compute of the variant at 8192x8192
# (barrier stalls, sectors) as call 5 did for base.
# Builds: bench/prepare_device_builds.sh check (or the packed one);
# OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant noagg \
#   bench/experiments/norm-stash-counted-rows-noagg.patch; bench/prepare_device_builds.sh pack.
# Carry build-var.
. bench/device_call.sh r1
cat build-check/HEAD.txt
dc_variants
cat var/vnoagg/VARIANT.txt
dc_ab_rounds norms noagg rms_norm,layer_norm bf16,f16 3
cat $R/ab-norms.txt
dc_cuda_tests noagg-stash-tests "ops: norm backwards through the stash kernels*" noagg
tail -n 3 $R/noagg-stash-tests.txt
pack
t ncu-noagg timeout 150 env PYTHONPATH="$PWD/python" OPKIT_LIBRARY="$DC_LIB" \
    OPKIT_VENDOR_PATH="$PWD/var/vnoagg/libopkit_vendor_cuda.so" \
    ncu --clock-control none -k regex:opk_rms_bwd_stash -c 1 --section SpeedOfLight \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats --section SourceCounters -o "$R/ncu-noagg" \
    python3 bench/ncu_ops.py --ops norms --dtype bf16 --row-shapes 8192x8192
t details-noagg ncu -i "$R/ncu-noagg.ncu-rep" --page details
t source-noagg ncu -i "$R/ncu-noagg.ncu-rep" --page source --csv --print-source sass
gzip -9 "$R/source-noagg.txt"
rm -f "$R/ncu-noagg.ncu-rep"
pack
cat $R/times.txt
