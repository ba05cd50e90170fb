#!/usr/bin/env bash
# Session 2026-11-29 (twelfth), device call 1: (a) bench/experiments/norm_backward_stash.cu
# (the norm backwards with the rows stashed in shared memory by cp.async, launch shapes
# and ring sizes, against the library's cached / streamed kernels); (b) the norms through
# the library at HEAD (ee5c790) against eager, torch.compile and Liger-Kernel in one run.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r1.tgz --exclude=triton --exclude=inductor -C $R .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
t stash timeout 200 build-gpu/devrun/norm_backward_stash
pack
t compare-norms timeout 300 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm --dtypes bf16,f32 --out $R/compare-norms.json
pack
