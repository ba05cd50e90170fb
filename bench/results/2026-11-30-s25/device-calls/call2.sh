#!/usr/bin/env bash
# Twenty-fifth session, call 2, on build-check = 5c51766's build (HEAD's vendor code).
# Variant vcs (build-var/var.tar.xz; bench/experiments/norm-shared-sums-planar.patch): the
# 2-byte four-pack norm stash backwards (rows of 16384) keep their shared-memory column
# sums in planes of float4 quads instead of pack-major (Nsight Compute, twenty-fourth
# session r1: 6.8-way bank conflicts on the rms_norm kernel's shared stores, 5.2-way on
# its loads). Its stash test case and conformance on cuda and rocm (shim), then two A/B
# rounds; then Nsight Compute of the fp32 split (_k2) stash backwards at 4096x16384
# (0.78 of copy, never profiled at that shape). Carry build-check, build-var/var.tar.xz. ~300 s.
. bench/device_call.sh r2
dc_variants
dc_tests vcs "ops: norm backwards*" cs
pack
dc_ab_rounds cs 'cs' norm_backward bf16 2
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section SchedulerStats --section SourceCounters"
t ncu-f32k2 timeout 200 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB ncu --clock-control none -k 'regex:_bwd_stash_f32_k2' $S python3 bench/ncu_ops.py --ops norms --dtype f32
pack
cat $R/times.txt
tail -3 $R/vcs-tests.txt $R/vcs-tests-rocm.txt $R/vcs-conformance.txt $R/vcs-conformance-rocm.txt
cat $R/ab-cs.txt
grep -E 'opk_|Duration|DRAM Throughput|Issued Warp|Eligible|Warp Cycles Per Issued' $R/ncu-f32k2.txt | head -40
