#!/usr/bin/env bash
# Session 2026-11-29 (eleventh), device call 5: the stash kernels in the library
# (opk_ce_fwd_stash_<dtype>_k<K>), their grid now exactly two waves of the clusters that
# fit (cuOccupancyMaxActiveClusters; call 4 estimated it from shared memory): (a) the cuda vendor's cross-entropy tests; (b) which
# kernels the new stash test case launched (Nsight Compute, one metric, a summary per
# kernel name); (c) cross_entropy through the library, build-old (a123759) against
# build-gpu, alternating twice; (d) cross-entropy against eager, torch.compile and
# Liger-Kernel in one run.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r5.tgz --exclude=triton --exclude=inductor -C $R .; }
t ce-tests timeout 200 build-gpu/bin/opkit_cuda_tests "ops: cross_entropy*"
pack
t ncu-stash timeout 200 ncu --print-summary per-kernel --metrics gpu__time_duration.sum -k regex:opk_ce_fwd build-gpu/bin/opkit_cuda_tests "ops: cross_entropy forward with dlogits through the stash kernels*"
pack
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 120 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops cross_entropy --dtypes bf16,f32 --out $R/ab-$b-$i.json
done; done
pack
t compare-ce timeout 100 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops cross_entropy --dtypes bf16,f32 --out $R/compare-ce.json
pack
