#!/usr/bin/env bash
# Thirty-fourth session, call 3: (a) every op against the peers in one run a dtype
# (bench/gpu_compare.py, all cases, bf16 then f32) on build-check = HEAD's build (b1ec9ed;
# its kernels those of 8fe5d9a, the whole check passed on it in call 1): the standing table
# at HEAD and a second sample of every row beside the thirty-first session's call 6;
# (b) the CPU defaults against PyTorch CPU eager on the GPU machine's host (issue 14 item
# 3), every op, f32 and bf16, 16 threads then one, five alternating rounds a row, as the
# twenty-first session's call 4, to re-measure the rows stale since bce51ca. Groups stop
# starting past 520 s. Carry build-check (less its rocm vendor, which neither part loads:
# the 64 MiB limit), .whl.
. bench/device_call.sh r3
dc_liger
run_compare() {  # NAME ARGS...
  local name=$1
  shift
  t "$name" timeout 220 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py "$@" --out "$R/$name.json"
  pack
}
run_compare compare-bf16 --dtypes bf16
run_compare compare-f32 --dtypes f32
t lscpu lscpu
C="env PYTHONPATH=$PWD/python OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY=$DC_LIB"
for th in 16 1; do
  for g in rms_norm,layer_norm,softmax swiglu,geglu,rope cross_entropy,embedding,matmul; do
    [ $SECONDS -gt 520 ] && break 2
    t cc$th-${g%%,*} timeout 110 $C python3 bench/cpu_compare.py --ops $g --threads $th --rounds 5 --reps 11 --out $R/cc$th-${g%%,*}.json
    pack
  done
done
cat $R/times.txt
for n in compare-bf16 compare-f32; do python3 bench/perf_table.py --summary $R/$n.json; done
