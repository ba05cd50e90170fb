#!/usr/bin/env bash
# Session 2026-11-29 (seventeenth), device call 5: for the next step, what flat row
# addressing everywhere would do to the kernels 4990ad8 left alone: vflat (82b409e with
# flat-rows.patch's OPK_EXP_FLAT_ROWS=1 in every kernel; correct only for views of one outer
# dimension, as gpu_compare's) against vO (82b409e), alternating twice, over the backwards,
# the elementwise ops, rope and embedding, bf16 and f32.
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r5.tgz -C $R .; }
mkdir -p var && tar xJf build-var/var.tar.xz -C var
lib=$PWD/build-check/lib/libopkit.so.1
for i in 1 2; do for v in O flat; do
  t ab-$v-$i timeout 120 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$PWD/var/v$v/libopkit_vendor_cuda.so python3 bench/gpu_compare.py --impls opkit --ops backward,swiglu,geglu,rope,embedding --dtypes bf16,f32 --out $R/ab-$v-$i.json
done; pack; done
cat $R/times.txt
