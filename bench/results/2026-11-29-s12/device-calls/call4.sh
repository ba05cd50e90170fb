#!/usr/bin/env bash
# Session 2026-11-29 (twelfth), device call 4: the stash backwards' reductions alternating
# two scratches (one barrier a row, not two) and the register sums flushed as 16-byte
# stores (ColumnRegs, every cached kernel): (a) the stash test case, plain and timed; (b)
# the norms through the library, build-old (ec45ada, call 3's) against build-gpu,
# alternating twice; (c) against eager, torch.compile and Liger-Kernel in one run.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r4.tgz --exclude=triton --exclude=inductor -C $R .; }
t stash-test timeout 150 build-gpu/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
pack
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 60 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm --dtypes bf16,f16,f32 --out $R/ab-$b-$i.json
done; done
pack
t compare-norms timeout 120 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm --dtypes bf16,f32 --out $R/compare-norms.json
pack
