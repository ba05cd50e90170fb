#!/usr/bin/env bash
# Session 2026-11-29 (twelfth), device call 3: the norm stash kernels with two slots and
# fp32 rows up to 4096 (ec45ada): (a) the stash test case; (b) compute-sanitizer memcheck
# and racecheck over the stash kernels; (c) the norms through the library, build-old
# (ee5c790) against build-gpu, alternating twice; (d) against eager, torch.compile and
# Liger-Kernel in one run; (e) Nsight Compute (full set) of one launch of the bf16 stash
# kernels at 4096x16384 (layer_norm, rms_norm: 0.62 / 0.69 of copy in call 2) and of
# layer_norm's at 8192x8192 (0.71).
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r3.tgz --exclude=triton --exclude=inductor --exclude='*.ncu-rep' -C $R .; }
STASH="ops: norm backwards through the stash kernels*"
t stash-test timeout 60 build-gpu/bin/opkit_cuda_tests "$STASH"
pack
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 60 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm --dtypes bf16,f16,f32 --out $R/ab-$b-$i.json
done; done
pack
t compare-norms timeout 120 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm --dtypes bf16,f32 --out $R/compare-norms.json
pack
prof() {  # prof NAME KERNEL-REGEX OP SHAPE
  t ncu-$1 timeout 90 ncu --set full -k regex:$2 --launch-count 1 -o $R/$1 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops $3 --shapes $4 --dtypes bf16 --reps 1
  ncu --import $R/$1.ncu-rep --page details > $R/ncu-$1-details.txt 2>&1
}
prof ln16384 ln_bwd_stash_bf16_s2_exact layer_norm_backward 4096x16384
prof rms16384 rms_bwd_stash_bf16_s2_exact rms_norm_backward 4096x16384
prof ln8192 ln_bwd_stash_bf16_s1_exact layer_norm_backward 8192x8192
pack
t memcheck timeout 100 compute-sanitizer --tool memcheck --kernel-name kns=_bwd_stash_ build-gpu/bin/opkit_cuda_tests "$STASH"
pack
t racecheck timeout 100 compute-sanitizer --tool racecheck --kernel-name kns=_bwd_stash_ build-gpu/bin/opkit_cuda_tests "$STASH"
pack
