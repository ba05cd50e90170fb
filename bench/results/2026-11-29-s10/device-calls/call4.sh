#!/usr/bin/env bash
# Session 2026-11-29 (tenth), device call 4: (a) ce_loss_variants --grads: the forward with
# dlogits and the backward at a fixed group of 256 threads; (b) the loss-only kernel
# opk_ce_fwd_loss_* (build-gpu) against 7f39788 (build-old), cross_entropy alone,
# alternating twice; (c) its losses against PyTorch in float64 (ce_check.py); (d) the cuda
# vendor's tests on build-gpu (test_cuda_ops now calls the forward without dlogits too).
set -u
R=$(mktemp -d)
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error
D=bench/results/2026-11-29-s10/device-calls
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r4.tgz -C $R .; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt 2>&1
t ce-grads timeout 120 build-gpu/devrun/ce_loss_variants --grads
pack
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 120 env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops cross_entropy --dtypes bf16,f32 --out $R/ab-$b-$i.json
done; done
pack
t ce-check timeout 200 env OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 $D/ce_check.py
pack
t cuda-tests timeout 250 build-gpu/bin/opkit_cuda_tests
pack
