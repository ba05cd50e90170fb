#!/usr/bin/env bash
# Session 2026-11-29 (tenth), device call 5: every GPU check (scripts/gpu-check.sh) on the
# build of 625a665 (the fixed-group cross-entropy forwards), then cross-entropy against
# eager, torch.compile and Liger-Kernel in one run (bf16, f32).
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r5.tgz --exclude=triton --exclude=inductor -C $R .; }
t gpu-check env OUT=$R/check scripts/gpu-check.sh build-gpu
pack
t compare-ce timeout 80 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops cross_entropy --dtypes bf16,f32 --out $R/compare-ce.json
pack
