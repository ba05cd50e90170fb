#!/usr/bin/env bash
# The forty-third session, call 2 (prepared in the forty-second session). Every op against the
# peers on HEAD (5218f5b: the standing table of docs/PERFORMANCE.md is ab86d74's, its bf16
# softmax backward and fwd+bwd at 4096x16384 stale since 5218f5b), five alternating rounds
# each dtype, as the forty-first session's call 3 (rounds-bf16 102 s, rounds-f32 104 s there);
# then the four same-call breakdowns of the forty-first session's prepared six that have not
# run (the forty-second's call 3 ran the bf16 norm forwards and the bf16 softmax), as the
# time left allows (each stops at 120 s; none starts after 450 s of the call).
# Builds: bench/prepare_device_builds.sh check; pack. Carry build-var, .whl.
. bench/device_call.sh r2
cat build-check/HEAD.txt
dc_liger
export TORCH_LOGS=recompiles  # a recompile would time Dynamo's dynamic-size kernel
dc_compare rounds-bf16 --dtypes bf16 --rounds 5
dc_compare rounds-f32 --dtypes f32 --rounds 5
[ $SECONDS -lt 360 ] && dc_breakdown kb-norm-fwd-f32 --calls 30 --ops layer_norm_forward --dtypes f32
[ $SECONDS -lt 390 ] && dc_breakdown kb-softmax-f32 --calls 30 --ops softmax_forward,softmax_backward --dtypes f32
[ $SECONDS -lt 420 ] && dc_breakdown kb-gated-bwd --calls 30 --ops swiglu_backward,geglu_backward --dtypes bf16,f32
[ $SECONDS -lt 450 ] && dc_breakdown kb-embedding-bf16 --calls 30 --ops embedding_forward --dtypes bf16
cat $R/times.txt
for n in rounds-bf16 rounds-f32; do [ -f $R/$n.json ] && python3 bench/perf_table.py --summary $R/$n.json; done
grep -h "same calls\|: call" $R/kb-*.txt
pack
