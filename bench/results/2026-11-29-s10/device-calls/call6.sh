#!/usr/bin/env bash
# Session 2026-11-29 (tenth), device call 6: after call 5 showed the 2-byte fixed-group
# forward with dlogits slower at V 128256 (rows that do not fit L2), it takes only rows
# that fit (fixed_forward_plan): the cuda vendor's tests and cross-entropy against the
# peers again.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r6.tgz --exclude=triton --exclude=inductor -C $R .; }
t compare-ce timeout 80 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops cross_entropy --dtypes bf16,f32 --out $R/compare-ce.json
pack
t cuda-tests timeout 200 build-gpu/bin/opkit_cuda_tests
pack
