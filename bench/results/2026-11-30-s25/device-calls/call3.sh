#!/usr/bin/env bash
# Twenty-fifth session, call 3, on build-check = 5c51766's build (HEAD's vendor code).
# Call 2's Nsight Compute of the fp32 split stash backwards (opk_{rms,ln}_bwd_stash_f32_k2,
# 4096x16384: DRAM 70-71 %, one warp in four issuing) led to two findings in their SASS:
# each row's cluster.sync() (the row sums' exchange) is MEMBAR.ALL.GPU + cluster barrier,
# so every thread waits there for its previous row's dx stores to complete; and nvcc split
# the first dx pack's 16-byte store into four 4-byte stores. Variants (build-var/var.tar.xz):
#   vxg: the row sums gathered by st.async into the other blocks' shared memory, counted
#        on an mbarrier each block waits on (stash_rows.cuh ClusterGather), no cluster
#        barrier a row;
#   vst: vxg + the dx packs stored by one st.global.v4 each;
#   vce: vst + the cross-entropy cluster stash forwards (with dlogits, V >= 32768 in bf16)
#        gathering their row statistics the same way.
# Tests (the stash cases of norms and cross-entropy, cuda and rocm, conformance) on vce,
# A/B two rounds each, Nsight Compute of vst's fp32 split kernels.
# Carry build-check, build-var/var.tar.xz. ~330 s.
. bench/device_call.sh r3
dc_variants
dc_tests vce "ops: norm backwards*,ops: cross_entropy*" ce
pack
dc_ab_rounds xg 'xg' norm_backward f32 2
dc_ab_rounds st 'st' norm_backward f32 2
dc_ab_rounds ce 'ce' cross_entropy bf16,f32 2
S="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section SourceCounters"
t ncu-vst timeout 120 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$PWD/var/vst/libopkit_vendor_cuda.so ncu --clock-control none -k 'regex:_bwd_stash_f32_k2' $S python3 bench/ncu_ops.py --ops norms --dtype f32
pack
cat $R/times.txt
for f in vce-tests vce-tests-rocm vce-conformance vce-conformance-rocm; do tail -n 3 $R/$f.txt; done
cat $R/ab-xg.txt $R/ab-st.txt $R/ab-ce.txt
grep -E 'opk_|Duration|DRAM Throughput|Issued Warp|excessive' $R/ncu-vst.txt | head -20
