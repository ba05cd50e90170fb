#!/usr/bin/env bash
# bench/kernel_breakdown.py (new) on 0c41253: every bf16 op's kernels and the time its
# call has beyond them (gaps, launch starts and drains), and the fp32 norms and softmax;
# then the bf16 norm backwards again, for their repeatability. Carry build-check.
. bench/device_call.sh r5
kb() { t "kb-$1" timeout 300 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB python3 bench/kernel_breakdown.py "${@:2}"; }
kb bf16 --dtypes bf16
pack
kb f32-rows --dtypes f32 --ops norm,softmax
pack
kb bf16-norm-bwd-2 --dtypes bf16 --ops norm_backward
pack
cat $R/times.txt
grep -h "call " $R/kb-*.txt
