#!/usr/bin/env bash
# The fiftieth session's call 4, on build-check 6027a3d (the dense swiglu backward and fp32
# geglu(tanh) backward at 8 bytes a thread): the gated ops against the peers (five rounds,
# bf16 and f32: the standing table's rows), then the f16 gated ops old / new (three rounds;
# variant "old" = HEAD~1's vendor sources: git diff HEAD HEAD~1 -- vendors/gpu), then the
# whole GPU check.
# Builds: bench/prepare_device_builds.sh check; OPKIT_PREPARE_ROCM=0
#   bench/prepare_device_builds.sh variant old /tmp/old-ew.patch; bench/prepare_device_builds.sh pack
# Carry build-var and .whl.
. bench/device_call.sh r4
cat build-check/HEAD.txt
dc_liger
dc_variants
export TORCH_LOGS=recompiles  # a recompile would time Dynamo's dynamic-size kernel
dc_compare gated-bf16 --ops swiglu,geglu --dtypes bf16 --rounds 5
dc_compare gated-f32 --ops swiglu,geglu --dtypes f32 --rounds 5
for n in gated-bf16 gated-f32; do python3 bench/perf_table.py --summary $R/$n.json; done
unset TORCH_LOGS
dc_ab_rounds f16 old swiglu,geglu f16 3
cat $R/ab-f16.txt
dc_check
cat $R/times.txt
pack
