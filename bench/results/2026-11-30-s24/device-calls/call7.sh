#!/usr/bin/env bash
# Twenty-fourth session, call 7, on build-check = 5c51766's build (call 6's).
# The norms and softmax, forwards, backwards and training steps, against eager,
# torch.compile and Liger-Kernel, bf16 then fp32: the standing table's rows for the ops
# whose forwards changed (calls 4-5 timed the forwards alone).
# Carry build-check, .whl. About 150 s.
. bench/device_call.sh r7
dc_liger
for dt in bf16 f32; do
  t compare-$dt timeout 110 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --ops norm,softmax --out $R/compare-$dt.json
  pack
done
cat $R/times.txt
