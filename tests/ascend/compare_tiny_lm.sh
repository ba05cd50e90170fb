#!/usr/bin/env bash
# compare_tiny_lm.sh TINY_LM STEPS TEXT — tiny_lm trained on the ascend vendor (over the
# emulator) must end at the CPU defaults' loss. Both train in fp32 from the same seed;
# the emulator rounds each op's result once from float64, the CPU kernels accumulate in
# fp32, so the losses differ only by rounding (measured: 1e-6 after 150 steps). 1e-4
# relative leaves room for that and still catches any op that is wrong.
set -euo pipefail
tiny_lm=$1 steps=$2 text=$3
cpu=$("$tiny_lm" --device cpu --steps "$steps" --quiet --text "$text" | sed -n 's/^final loss //p')
npu_out=$("$tiny_lm" --device ascend --steps "$steps" --quiet --text "$text")
echo "$npu_out"
npu=$(echo "$npu_out" | sed -n 's/^final loss //p')
echo "final loss: cpu $cpu, ascend $npu"
echo "$npu_out" | grep -q '^ops on .*rms_norm_forward=ascend' || { echo "FAIL: the ascend vendor did not serve the ops"; exit 1; }
awk -v a="$cpu" -v b="$npu" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; if (m < 1) m = 1;
  if (a == "" || b == "" || d > 1e-4 * m) { print "FAIL: the losses differ by " d; exit 1 } print "ok: |diff| " d }'
