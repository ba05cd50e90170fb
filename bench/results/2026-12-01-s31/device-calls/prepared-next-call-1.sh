#!/usr/bin/env bash
# Prepared in the thirty-first session for the next one (not run: no device time was left).
# Where the ops that trail a peer by 1-4 % lose it: each call broken down into its kernels'
# device time (CUPTI) and the time beyond them, for opkit and the peer it trails, in one
# process (bench/kernel_breakdown.py --impls). Nsight Compute had the embedding forward's
# kernel faster than Inductor's (32.8 against 34.7 us, the tenth session), yet the
# timed call is 0.99x compile (37.2 against 36.3 us): is the difference beyond the kernel?
# The same question for rope forward f32 (0.96x compile), softmax backward bf16 (0.97x
# Liger and compile), rms_norm forward bf16 4096x16384 (0.98x Liger), swiglu / geglu
# forward bf16 32768x4096 (0.996x compile). Carry build-check, .whl. About 200 s.
. bench/device_call.sh r1
dc_liger
kb() {  # NAME DTYPES OPS SHAPES IMPLS
  t "kb-$1" timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor \
    OPKIT_LIBRARY=$DC_LIB python3 bench/kernel_breakdown.py --dtypes "$2" --ops "$3" --shapes "$4" --impls "$5"
  pack
}
kb emb bf16,f32 embedding_forward V128256 opkit,compile
kb rope f32 rope_forward 4x4096x32x128 opkit,compile
kb smb bf16 softmax_backward 32768x4096,4096x16384 opkit,compile,liger
kb rmsf bf16 rms_norm_forward 4096x16384 opkit,liger
kb glu bf16 swiglu_forward,geglu_forward 32768x4096 opkit,compile,liger
cat $R/times.txt; cat $R/kb-*.txt
