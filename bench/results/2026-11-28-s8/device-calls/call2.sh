#!/usr/bin/env bash
# Session 2026-11-28 (eighth), device call 2: the CPU pool's affinity (branch
# wip/pool-affinity: worker i claims chunk i + 1 first) against main's pool at 16 threads,
# alternating twice, with cpu_compare's settle; the norms against Liger-Kernel and
# torch.compile (bf16); ncu source-level profiles of opkit's and Liger's bf16 layer_norm
# backward (8192x8192) and forward (32768x4096), and the SASS of norms.fatbin.
set -u
R=$(mktemp -d); mkdir -p $R/triton
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target <site> .whl/*.whl
export PYTHONPATH=<site>:$PWD/python OPKIT_LOG_LEVEL=error TRITON_CACHE_DIR=$R/triton
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r2.tgz --exclude=triton -C $R .; }
for i in 1 2; do for b in head pool; do
  t cc16-$b-$i env OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/cpu_compare.py --threads 16 --reps 21 --out $R/cc16-$b-$i.json
done; pack; done
t compare-norms env OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm_forward,norm_backward --dtypes bf16 --out $R/compare-norms.json
pack
K='regex:opk_ln_|opk_column_sum|_layer_norm_'
t ncu-src env OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 ncu --clock-control none --import-source yes -k "$K" --set full -o $R/src python3 bench/results/2026-11-28-s8/device-calls/ncu_ln_bf16.py
t ncu-details ncu -i $R/src.ncu-rep --page details
t ncu-sass ncu -i $R/src.ncu-rep --page source --print-source sass --csv
rm -f $R/src.ncu-rep
t sass-norms cuobjdump -sass build-gpu/vendors/cuda/fatbin/norms.fatbin
pack
