#!/usr/bin/env bash
# Session 2026-11-29 (seventeenth), device call 6, at 4990ad8's kernels (build-check):
# the fp32 forwards and cross-entropy against eager, torch.compile and Liger-Kernel (their
# kernels changed since the fifteenth session's fp32 run), then the CPU embedding forward
# at 16 threads on the 16-core host, twice.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r6.tgz --exclude=triton --exclude=inductor -C $R .; }
t compare-f32 timeout 150 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm_forward,softmax_forward,cross_entropy --dtypes f32 --out $R/compare-f32.json
pack
for i in 1 2; do
  t cpu-emb-$i timeout 40 env OPKIT_VENDORS_DISABLE=cuda,rocm PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/cpu_compare.py --ops embedding_forward --threads 16 --reps 21 --out $R/cpu-emb-$i.json
done
pack
cat $R/times.txt
