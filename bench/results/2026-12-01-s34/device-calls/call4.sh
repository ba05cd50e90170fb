#!/usr/bin/env bash
# Thirty-fourth session, call 4: the fixed-group row forwards' L2 prefetch distance
# (kRowPrefetchAheadBytes, 4 MB; the twenty-fourth session measured 1, 2, 4 and ~8.4 MB)
# at 3 MB (vpf3m) and 6 MB (vpf6m): bench/experiments/row-prefetch-distance.patch with
# OPK_EXP_PF_AHEAD_KB=3072 / 6144, built with bench/prepare_device_builds.sh variant and
# pack. Two A/B rounds each against build-check on the forwards that prefetch (norms and
# softmax, rope's 2-byte kernels), bf16 and f32; then the CPU embedding forward at 16
# threads in eleven rounds (its five-round median in call 3 was 1.23 in bf16, rounds
# 0.74-1.66); then the variant's row and rope test cases if time is left.
# Carry build-check (less its rocm vendor: the 64 MiB limit), build-var.
. bench/device_call.sh r4
dc_variants
OPS=rms_norm_forward,layer_norm_forward,softmax_forward,rope_forward
dc_ab_rounds pf3 pf3m $OPS bf16,f32 2
dc_ab_rounds pf6 pf6m $OPS bf16,f32 2
t cc16-embedding timeout 100 env PYTHONPATH=$PWD/python OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY=$DC_LIB python3 bench/cpu_compare.py --ops embedding --threads 16 --rounds 11 --reps 11 --out $R/cc16-embedding.json
pack
[ $SECONDS -lt 300 ] && dc_cuda_tests pf6-tests "ops: rms_norm*,ops: layer_norm*,ops: softmax*,ops: rope*" pf6m
pack
cat $R/times.txt $R/ab-*.txt $R/cc16-embedding.txt; tail -n 3 $R/*-tests.txt
