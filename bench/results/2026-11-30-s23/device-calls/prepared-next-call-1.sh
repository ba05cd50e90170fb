#!/usr/bin/env bash
# Prepared in the twenty-third session for the next one: why the 2-byte norm stash
# backwards' row kernels reach 0.95 of copy at 32768x4096 and 8192x8192 but 0.89 at
# 4096x16384 (kernel_breakdown of the twenty-second session, r5/kb-nb.txt: rms_norm's
# s2_exact 105.8 us against 94.5 us of copy for x, dy and dx; layer_norm's pairs 105.2 us).
# Arithmetic so far: one block an SM (a ring of two 64 KB rows and 64 KB of shared column
# sums), 4096 rows over 132 blocks = 31.03 rows a block, so four blocks take a 32nd row
# (3 % of tail) and the steady state is 0.92 of copy. (a) Nsight Compute of the bf16 norm
# backwards' kernels at both shapes, at the GPU's own clocks: stall reasons, memory
# throughput, occupancy, whether the ring's next row is in flight while a row is
# computed; (b) the same for the bf16 layer_norm forward (0.82 of copy at 4096x16384).
# Carry build-check. About 200 s.
. bench/device_call.sh r1
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats"
t ncu-nb timeout 240 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB ncu --clock-control none -k 'regex:_bwd_stash_bf16|opk_ln_fwd' $S python3 bench/ncu_ops.py --ops norms --dtype bf16
pack
cat $R/times.txt
grep -h "opk_\|Duration\|Memory Throughput\|DRAM Throughput\|Achieved Occupancy\|Stall\|Warp Cycles Per Issued" $R/ncu-nb.txt | head -80
