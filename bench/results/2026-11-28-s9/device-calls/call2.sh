#!/usr/bin/env bash
# Session 2026-11-28 (ninth), device call 2: build-gpu = main c53d36f + the fixed-group
# shuffle stage (G = 0 kernels byte-identical to c53d36f's) + layer_norm's 2-byte exact
# backward holding the weight in registers + the 2-byte exact softmax backward at 40
# registers; build-old = c53d36f. A/B of the row ops, opkit alone, bf16/f16/f32, alternating
# twice; the two-pack fixed forwards at higher occupancy (row_forward_variants); conformance
# on cuda and rocm; ncu of the two changed backwards (opkit only).
set -u
R=$(mktemp -d); mkdir -p $R/triton
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target <site> .whl/*.whl
export PYTHONPATH=<site>:$PWD/python OPKIT_LOG_LEVEL=error TRITON_CACHE_DIR=$R/triton
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r2.tgz --exclude=triton -C $R .; }
O="norm_forward,norm_backward,softmax"
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 120 env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops $O --dtypes bf16,f16,f32 --out $R/ab-$b-$i.json
done; pack; done
t rfv2 timeout 150 build-gpu/devrun/rfv2
pack
S=$PWD/build-gpu/tests/hip_on_cuda; HIP=$S/hip:$S/hipblaslt:$S/rocblas
t conformance timeout 90 build-gpu/bin/opkit-conformance --vendor cuda
t rocm-conformance timeout 90 env LD_LIBRARY_PATH=$HIP build-gpu/bin/opkit-conformance --vendor rocm
pack
K='regex:opk_ln_bwd_exact|opk_softmax_bwd_exact'
t ncu-src timeout 120 env OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 ncu --clock-control none --import-source yes -k "$K" --set full -o $R/src python3 bench/results/2026-11-28-s9/device-calls/ncu_misses.py
t ncu-details ncu -i $R/src.ncu-rep --page details
ncu -i $R/src.ncu-rep --page source --print-source sass --csv > /tmp/sass.csv 2>&1
t ncu-mix python3 bench/ncu_sass_mix.py /tmp/sass.csv 40
rm -f $R/src.ncu-rep
pack
