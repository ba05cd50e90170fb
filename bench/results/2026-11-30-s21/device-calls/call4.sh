#!/usr/bin/env bash
# The twenty-first session's call 4: the CPU defaults against PyTorch CPU eager on the
# GPU machine's host (issue 14 item 3), every op, f32 and bf16, 16 threads then one, the
# median of five alternating rounds per row (bench/cpu_compare.py --rounds 5), in three
# groups of ops per thread count, each packed at once; stops starting groups past 430 s.
# bbf5f8e's build (build-check; its libopkit's built-in CPU defaults; matmul the built-in
# one: no blas vendor in build-check). Carry build-check.
. bench/device_call.sh r4
t lscpu lscpu
C="env PYTHONPATH=$PWD/python OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY=$DC_LIB"
for th in 16 1; do
  for g in rms_norm,layer_norm,softmax swiglu,geglu,rope cross_entropy,embedding,matmul; do
    [ $SECONDS -gt 430 ] && break 2
    t cc$th-${g%%,*} timeout 110 $C python3 bench/cpu_compare.py --ops $g --threads $th --rounds 5 --reps 11 --out $R/cc$th-${g%%,*}.json
    pack
  done
done
cat $R/times.txt
