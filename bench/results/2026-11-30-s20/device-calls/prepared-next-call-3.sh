#!/usr/bin/env bash
# Prepared in the twentieth session for the next one, after calls 1 and 2 (and the
# cross-entropy patch landed or not): one run of every op against eager, torch.compile and
# Liger-Kernel in bf16 and fp32, for a standing table without the "≥" marks (the norm
# backwards' rows were last measured against the peers before their dependent column sums).
# Carry build-check and .whl (Liger-Kernel's wheel). About 400 s.
. bench/device_call.sh r3
dc_liger
for dt in bf16 f32; do
  t compare-$dt timeout 280 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --out $R/compare-$dt.json
  pack
done
cat $R/times.txt
