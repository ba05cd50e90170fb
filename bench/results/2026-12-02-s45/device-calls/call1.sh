#!/usr/bin/env bash
# Forty-fifth session, call 1.
# 1. bench/experiments/norm_backward_red.cu (new, built on the build VM and carried in
#    build-var/exp/): the bf16 rms_norm backward at 4096x16384 with no persistent grid,
#    a block a row (or R rows) adding its dweight terms into a few partial rows by L2
#    reductions, against the library's stash kernel in the same run (about 40 s).
# 2. The forty-fourth session's prepared call 1: every op against the peers on HEAD
#    (15d2e1b; its vendors byte-identical to 23dfc0c's), five alternating rounds a dtype:
#    the standing table of docs/PERFORMANCE.md, stale since 23dfc0c.
# Builds: bench/prepare_device_builds.sh check; pack; the experiment's binary in
# build-var/exp/. Carry build-var, .whl.
. bench/device_call.sh r1
cat build-check/HEAD.txt
cp build-var/exp/ptxas_red.txt $R/
t red timeout 240 build-var/exp/norm_backward_red
pack
dc_liger
export TORCH_LOGS=recompiles  # a recompile would time Dynamo's dynamic-size kernel
dc_compare rounds-bf16 --dtypes bf16 --rounds 5
dc_compare rounds-f32 --dtypes f32 --rounds 5
cat $R/times.txt $R/red.txt
for n in rounds-bf16 rounds-f32; do [ -f $R/$n.json ] && python3 bench/perf_table.py --summary $R/$n.json; done
pack
