#!/usr/bin/env bash
# Session 2026-11-29 (fourteenth), device call 2: (a) the fp32 norm backwards of rows of
# 1025-2048 packs through one-block stash kernels of config 2 (512 threads of four packs;
# build-vS2, HEAD + opk_{rms,ln}_bwd_stash_f32_s2[_exact]) against HEAD's register-sum
# kernels (build-old), alternating twice; the stash test case on build-vS2 (its fp32 s2
# widths now reach the new kernels); (b) Nsight Compute of opkit's and Liger-Kernel's
# kernels where opkit trails (ncu_fp32_8192.py), --set full, with the HEAD library.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r2.tgz --exclude=triton --exclude=inductor --exclude='*.ncu-rep' -C $R .; }
for i in 1 2; do for b in old vS2; do
  t ab-$b-$i timeout 60 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm_backward --dtypes f32 --out $R/ab-$b-$i.json
done; done
pack
t stash-test timeout 150 build-vS2/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
pack
K='regex:opk_(rms|ln)_(fwd|bwd)|_rms_norm_|_layer_norm_'
t ncu timeout 240 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton OPKIT_LIBRARY=$PWD/build-old/lib/libopkit.so.1 ncu --clock-control none -k "$K" --set full -o $R/src python3 bench/results/2026-11-29-s14/device-calls/ncu_fp32_8192.py
t ncu-details ncu -i $R/src.ncu-rep --page details
t ncu-raw ncu -i $R/src.ncu-rep --page raw --csv
cat $R/times.txt
pack
