#!/usr/bin/env bash
# Session 2026-11-28 (ninth), device call 1: wip/fixed-shuffle (build-gpu: the fixed-group
# forwards combine their warps' partials with shuffles) against main c53d36f (build-old),
# opkit alone, alternating twice; conformance of the branch on cuda and on rocm
# (HIP-over-CUDA); Nsight Compute of the four bf16 rows that still miss Liger-Kernel, main's
# build, opkit's kernels and Liger's.
set -u
R=$(mktemp -d); mkdir -p $R/triton
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target <site> .whl/*.whl
export PYTHONPATH=<site>:$PWD/python OPKIT_LOG_LEVEL=error TRITON_CACHE_DIR=$R/triton
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r1.tgz --exclude=triton -C $R .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
O="norm_forward,softmax"
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 90 env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops $O --dtypes bf16,f32 --out $R/ab-$b-$i.json
done; pack; done
S=$PWD/build-gpu/tests/hip_on_cuda; HIP=$S/hip:$S/hipblaslt:$S/rocblas
t conformance timeout 90 build-gpu/bin/opkit-conformance --vendor cuda
t rocm-conformance timeout 90 env LD_LIBRARY_PATH=$HIP build-gpu/bin/opkit-conformance --vendor rocm
pack
K='regex:opk_ln_bwd|opk_column_sum|opk_softmax|opk_rms_fwd|_layer_norm_backward|_softmax_|_rms_norm_forward'
t ncu-src timeout 200 env OPKIT_LIBRARY=$PWD/build-old/lib/libopkit.so.1 ncu --clock-control none --import-source yes -k "$K" --set full -o $R/src python3 bench/results/2026-11-28-s9/device-calls/ncu_misses.py
t ncu-details ncu -i $R/src.ncu-rep --page details
ncu -i $R/src.ncu-rep --page source --print-source sass --csv > /tmp/sass.csv 2>&1; echo "ncu-sass rc $?" >> $R/times.txt
t ncu-mix python3 bench/ncu_sass_mix.py /tmp/sass.csv 40
gzip -c /tmp/sass.csv > $OUT/sass.csv.gz; rm -f $R/src.ncu-rep
pack
