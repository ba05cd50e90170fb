#!/usr/bin/env bash
# Session 2026-11-29 (eleventh), device call 6: (a) the rope half split in the library
# (opk_rope_half_{f16,bf16}): the cuda vendor's rope tests, and rope through the library,
# build-old (a123759) against build-gpu, alternating twice (bf16, f16, f32), then rope
# against the peers in one run; (b) compute-sanitizer memcheck and racecheck over the
# cross-entropy stash test case (cp.async, distributed shared memory, in place).
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r6.tgz --exclude=triton --exclude=inductor -C $R .; }
t rope-tests timeout 120 build-gpu/bin/opkit_cuda_tests "ops: rope*"
pack
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 120 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops rope --dtypes bf16,f16,f32 --out $R/ab-$b-$i.json
done; done
pack
t compare-rope timeout 100 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops rope --dtypes bf16,f32 --out $R/compare-rope.json
pack
S="build-gpu/bin/opkit_cuda_tests"
C="ops: cross_entropy forward with dlogits through the stash kernels*"
t memcheck timeout 150 compute-sanitizer --tool memcheck --kernel-name regex:opk_ce_fwd_stash "$S" "$C"
pack
t racecheck timeout 150 compute-sanitizer --tool racecheck --kernel-name regex:opk_ce_fwd_stash "$S" "$C"
pack
