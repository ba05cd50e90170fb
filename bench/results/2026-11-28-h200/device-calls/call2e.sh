#!/usr/bin/env bash
# Session 2026-11-28e, device call 2: the fixed-group forwards and the softmax backward's
# exact kernels. A/B against the previous HEAD (dcb8131, build-headab: cuda vendor only),
# alternating twice; then every GPU check of scripts/gpu-check.sh on the new build.
set -u
R=$(mktemp -d); mkdir -p $R
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
nvidia-smi > $R/nvidia-smi.txt 2>&1
for i in 1 2; do for b in headab gpu6; do
  t ab-$b-$i env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm_forward,softmax --dtypes bf16,f32 --out $R/ab-$b-$i.json
done; done
tar czf $OUT/r2a.tgz -C $R .
mkdir -p $R/check
t gpu-check env OUT=$R/check scripts/gpu-check.sh build-gpu6
[ -x build-gpu6/devrun/nbv_f32 ] && t nbv-f32 build-gpu6/devrun/nbv_f32
tar czf $OUT/r2.tgz -C $R .
