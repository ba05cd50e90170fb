#!/usr/bin/env bash
# The thirty-first session's two prepared calls in one (bench/results/2026-12-01-s31/
# device-calls/prepared-next-call-{2,1}.sh): first vearly (the 2-byte stash backwards all
# holding the row and refilling its slot a row earlier; bench/experiments/
# norm-stash-hold-early.patch, OPK_EXP_HOLD_EARLY=1) through its test cases and three A/B
# rounds against build-check; then bench/kernel_breakdown.py --impls on the ops 1-4 % behind
# a peer. Carry build-check, build-var, .whl.
. bench/device_call.sh r1
dc_variants
dc_liger
dc_cuda_tests early-stash-tests "ops: norm backwards through the stash kernels*" early
pack
dc_cuda_tests early-norm-tests "ops: rms_norm*,ops: layer_norm*" early
pack
dc_ab_rounds early early norm_backward bf16,f16 3
kb() {  # NAME DTYPES OPS SHAPES IMPLS
  t "kb-$1" timeout 150 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor \
    OPKIT_LIBRARY=$DC_LIB python3 bench/kernel_breakdown.py --dtypes "$2" --ops "$3" --shapes "$4" --impls "$5"
  pack
}
kb emb bf16,f32 embedding_forward V128256 opkit,compile
kb rope f32 rope_forward 4x4096x32x128 opkit,compile
kb smb bf16 softmax_backward 32768x4096,4096x16384 opkit,compile,liger
kb rmsf bf16 rms_norm_forward 4096x16384 opkit,liger
kb glu bf16 swiglu_forward,geglu_forward 32768x4096 opkit,compile,liger
cat $R/times.txt $R/ab-early.txt; tail -n 3 $R/early-*-tests.txt; cat $R/kb-*.txt
