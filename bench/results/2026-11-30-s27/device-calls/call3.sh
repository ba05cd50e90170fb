#!/usr/bin/env bash
# Twenty-seventh session, call 3, on build-check = 597ca64 (the norm forwards' exact bodies
# with whole aligned weight and bias packs). 1. An instruction survey of every opk_ kernel
# of bench/ncu_ops.py's cases (norms, softmax, cross-entropy, rope, embedding; bf16 and
# fp32): executed warp instructions, issue slots busy, DRAM throughput, duration; where the
# issue slots are busy and DRAM is not, instructions are what to cut (the layer_norm
# forward at 61.6 % busy gave 1-1.5 % for 17 % fewer). 2. The norm forwards against the
# peers for the standing table.
# Carry build-check, .whl. About 200 s.
. bench/device_call.sh r3
dc_liger
M=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
for dt in bf16 f32; do
  t ncu-inst-$dt timeout 150 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB ncu --clock-control none --metrics $M \
      -k 'regex:opk_' python3 bench/ncu_ops.py --ops norms,softmax,ce,rope,embedding --dtype $dt
  pack
done
for dt in bf16 f32; do
  t compare-fwd-$dt timeout 150 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --ops norm_forward --out $R/compare-fwd-$dt.json
  pack
done
cat $R/times.txt
grep -E 'norm_forward' $R/compare-fwd-*.txt | cut -c1-250
