#!/usr/bin/env bash
# The fiftieth session's call 1: the embedding forward's ids asked for ahead of its rows.
#  - bench/experiments/embedding_forward_ahead.cu (built on the build VM into build-var/efa:
#    nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v): the library's dense kernel against R rows
#    a block and grid-walking loops with the next id (and its packs) asked for ahead, each
#    call timed behind a spin as gpu_compare.py does, bf16 and f32.
#  - Three library variants of bench/experiments/emb-fwd-ids-ahead.patch (OPK_EXP_EMB_AHEAD
#    1: two rows a block; 2: the blocks that fit at once walking the rows, the next row's id
#    and packs ahead; 3: as 2 on twice the grid): their embedding test cases on cuda, then
#    A/B three rounds each against HEAD's vendor.
#  - The embedding forward against the peers on HEAD's build-check, five rounds.
# Builds: bench/prepare_device_builds.sh check; then for N in 1 2 3:
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant eaN \
#     bench/experiments/emb-fwd-ids-ahead.patch OPK_EXP_EMB_AHEAD=N
#   bench/prepare_device_builds.sh pack
# Carry build-var and .whl.
. bench/device_call.sh r1
cat build-check/HEAD.txt
dc_liger
dc_variants
t efa build-var/efa
cat $R/efa.txt
pack
for v in ea1 ea2 ea3; do dc_cuda_tests tests-$v "*embedding*" $v; tail -3 $R/tests-$v.txt; done
pack
for v in ea1 ea2 ea3; do dc_ab_rounds $v $v embedding_forward bf16,f32 3; cat $R/ab-$v.txt; done
dc_compare emb --ops embedding_forward --dtypes bf16,f32 --rounds 5 --impls opkit,compile,liger,eager,copy
cat $R/times.txt
pack
