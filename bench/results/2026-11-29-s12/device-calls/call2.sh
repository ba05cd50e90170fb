#!/usr/bin/env bash
# Session 2026-11-29 (twelfth), device call 2: the norm backwards' stash kernels in the
# library (opk_{rms,ln}_bwd_stash_<dtype>_s<i>[_exact]): (a) the cuda vendor's norm tests,
# the new stash case included; (b) which kernels that case launched (Nsight Compute, one
# metric, a summary per kernel name); (c) compute-sanitizer memcheck and racecheck over the
# stash kernels; (d) the norms through the library, build-old (ee5c790) against
# build-gpu, alternating twice; (e) the norms against eager, torch.compile and
# Liger-Kernel in one run.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r2.tgz --exclude=triton --exclude=inductor -C $R .; }
STASH="ops: norm backwards through the stash kernels*"
t norm-tests timeout 150 build-gpu/bin/opkit_cuda_tests "$STASH" "ops: rms_norm*" "ops: layer_norm*"
pack
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 90 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm --dtypes bf16,f16,f32 --out $R/ab-$b-$i.json
done; done
pack
t compare-norms timeout 150 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm --dtypes bf16,f32 --out $R/compare-norms.json
pack
t ncu-stash timeout 120 ncu --print-summary per-kernel --metrics gpu__time_duration.sum -k regex:_bwd_stash_ build-gpu/bin/opkit_cuda_tests "$STASH"
pack
t memcheck timeout 100 compute-sanitizer --tool memcheck --kernel-name regex:_bwd_stash_ build-gpu/bin/opkit_cuda_tests "$STASH"
pack
t racecheck timeout 100 compute-sanitizer --tool racecheck --kernel-name regex:_bwd_stash_ build-gpu/bin/opkit_cuda_tests "$STASH"
pack
