#!/usr/bin/env bash
# Twenty-third session, call 4, on build-check = HEAD with layer_norm's pairs of stash
# blocks re-landed (the kernels renamed opk_ln_bwd_stash_{f16,bf16}_s<i>_k2*) and the
# check's racecheck step instrumenting every kernel on clusters of two (kns=_k2): calls 2
# and 3 showed the twenty-second session's failure to be racecheck's limit with
# uninstrumented distributed-shared-memory kernels, as the fourteenth session had found.
# (a) the whole GPU check; (b) layer_norm against eager, torch.compile and Liger-Kernel,
# bf16 then fp32 (the standing table's rows), each packed, no new step past 430 s.
# Carry build-check and .whl. About 460 s.
. bench/device_call.sh r4
dc_liger
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
for dt in bf16 f32; do
  [ $SECONDS -gt 430 ] && break
  t compare-$dt timeout 60 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --ops layer_norm --out $R/compare-$dt.json
  pack
done
cat $R/times.txt
tail -5 $R/check-split.txt
