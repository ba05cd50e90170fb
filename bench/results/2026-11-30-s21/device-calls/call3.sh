#!/usr/bin/env bash
# The twenty-first session's call 3, on bbf5f8e's build (the cross-entropy MEAN loss forward
# counting its own targets): (a) every op against eager, torch.compile and Liger-Kernel in
# bf16 and fp32, each packed at once, for a standing table without its "≥" marks (the
# twentieth session's prepared call 3); (b) the whole GPU check of bbf5f8e. Carry
# build-check and .whl. About 510 s.
. bench/device_call.sh r3
dc_liger
for dt in bf16 f32; do
  t compare-$dt timeout 150 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --out $R/compare-$dt.json
  pack
done
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=420; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
