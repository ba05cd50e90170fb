#!/usr/bin/env bash
# Twenty-fourth session, call 1, on build-check = 1f6e2a5's build (HEAD's vendor code).
# (a) bench/copy_sizes.py: a plain copy of each miss row's bytes, timed as gpu_compare
#     times, against the 1 GiB copy the "of copy" column divides by;
# (b) the prefetch variants (var.tar.xz: vpf1, vpf2 = HEAD + one bulk L2 prefetch a block,
#     cp.async.bulk.prefetch.L2 of the row one or two resident waves ahead, in the
#     fixed-group forwards of softmax, rms_norm and layer_norm): three rounds each
#     alternating with the base through gpu_compare --impls opkit;
# (c) the prepared Nsight Compute of the bf16 norm stash backwards and the forwards, if
#     time is left.
# Carry build-check, build-var/var.tar.xz. About 500 s.
. bench/device_call.sh r1
dc_variants
t copy-sizes timeout 60 python3 bench/copy_sizes.py
pack
dc_ab_rounds fwd 'pf1' norm_forward,softmax_forward bf16,f32 3
dc_ab_rounds fwd2 'pf2' norm_forward,softmax_forward bf16,f32 2
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section SchedulerStats"
if [ $SECONDS -lt 380 ]; then
  t ncu-nb timeout $((560 - SECONDS)) env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB ncu --clock-control none -k 'regex:_bwd_stash_bf16|_fwd_fixed_bf16' $S python3 bench/ncu_ops.py --ops norms,softmax --dtype bf16
  pack
fi
cat $R/times.txt
cat $R/copy-sizes.txt $R/ab-fwd.txt $R/ab-fwd2.txt
