#!/usr/bin/env bash
# Session 2026-11-29 (fourteenth), device call 3, on the build where rms_norm's fp32 rows of
# 1025-2048 packs go through the one-block stash kernels of config 2 (build-check;
# build-old: HEAD 2ef1e32's library): (a) the GPU quiet: event_vs_kernel.py (gpu_compare's
# event time against the kernels' own durations, opkit and Liger-Kernel); the fp32 norm
# backwards, build-old against build-check, alternating twice; the fp32 norms against
# eager, torch.compile and Liger-Kernel in one run; (b) side by side: the stash backward
# test case, and gpu-check's stash-kernels-ran, conformance and cuda-tests-no-clusters
# steps (the whole check in a later call).
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r3.tgz --exclude=triton --exclude=inductor -C $R .; }
P="PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor"
t event-vs-kernel timeout 90 env $P OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/results/2026-11-29-s14/device-calls/event_vs_kernel.py
pack
for i in 1 2; do for b in old check; do
  t ab-$b-$i timeout 60 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm_backward --dtypes f32 --out $R/ab-$b-$i.json
done; done
pack
t compare-f32 timeout 150 env $P OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm --dtypes f32 --out $R/compare-f32.json
pack
t stash-test timeout 200 build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*" &
for step in stash-kernels-ran conformance cuda-tests-no-clusters; do
  ( export OUT=$R/check-$step OPKIT_GPU_CHECK_ONLY="^$step\$"; t check-$step timeout 260 scripts/gpu-check.sh build-check ) &
done
wait
cat $R/times.txt
pack
