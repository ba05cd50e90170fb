#!/usr/bin/env bash
# Session 2026-11-29 (seventeenth), device call 3: the tree as it lands (the forwards'
# fixed-group kernels told their views have one outer dimension, assume_flat_rows;
# cross-entropy's rows through flat_row_ptr; row_offset's division unchanged elsewhere)
# against 82b409e's vendor (vO), alternating twice: the forwards and cross-entropy, bf16 and
# f32, plus the norm backwards (unchanged kernels: a control); then the stash and fixed-group
# test cases and conformance.
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r3.tgz -C $R .; }
mkdir -p var && tar xJf build-var/var.tar.xz -C var
lib=$PWD/build-check/lib/libopkit.so.1
for i in 1 2; do for v in O new; do
  vp=; [ $v != new ] && vp=$PWD/var/v$v/libopkit_vendor_cuda.so
  t ab-$v-$i timeout 120 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --impls opkit --ops norm,softmax_forward,cross_entropy --dtypes bf16,f32 --out $R/ab-$v-$i.json
done; pack; done
t conformance timeout 100 build-check/bin/opkit-conformance --vendor cuda
t cuda-tests-rows timeout 200 build-check/bin/opkit_cuda_tests "ops: rms_norm*,ops: layer_norm*,ops: softmax*,ops: row kernels*,ops: cross_entropy*"
pack
cat $R/times.txt
