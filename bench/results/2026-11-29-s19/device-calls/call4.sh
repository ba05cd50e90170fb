#!/usr/bin/env bash
# Nineteenth session, call 4, on the tree to be committed (the embedding backward zeroes a
# contiguous dweight whole, then writes the ids' rows): (a) the embedding test cases, cuda
# and rocm over the HIP-over-CUDA shim; (b) the embedding backward A/B against the previous
# vendor (vold), alternating twice; (c) emb_bwd_breakdown.py on the new vendor; (d) the
# whole GPU check, its six parts side by side (scripts/gpu-check-split.sh build-check).
. bench/device_call.sh r4
dc_variants
t emb-tests-cuda timeout 60 build-check/bin/opkit_cuda_tests "ops: embedding*"
for i in 1 2; do
  dc_ab emb-old-$i old embedding_backward bf16,f16,f32
  dc_ab emb-new-$i base embedding_backward bf16,f16,f32
done
python3 bench/ab_table.py $R emb-old emb-new > $R/ab-emb.txt 2>&1
for dt in bf16 f32; do
  t emb-bwd-$dt timeout 60 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB python3 bench/emb_bwd_breakdown.py --dtype $dt
done
pack
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt $R/ab-emb.txt
