#!/usr/bin/env bash
# Session 2026-11-29 (seventeenth), device call 2: row_offset by multiply-and-shift
# (vendors/gpu/row_divide.h; the tree, build-check) against 82b409e's vendor (vO, a
# 64-bit division a dimension), every op through gpu_compare (opkit alone), bf16 and f32,
# alternating twice; then the cuda tests (permuted views take the divided path).
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r2.tgz -C $R .; }
mkdir -p var && tar xJf build-var/var.tar.xz -C var
lib=$PWD/build-check/lib/libopkit.so.1
env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$PWD/var/vO/libopkit_vendor_cuda.so python3 -c "import opkit; [print(v) for v in opkit.vendors()]" > $R/vendors-O.txt 2>&1
for i in 1 2; do for v in O new; do
  vp=; [ $v != new ] && vp=$PWD/var/v$v/libopkit_vendor_cuda.so
  t ab-$v-$i timeout 120 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --impls opkit --dtypes bf16,f32 --out $R/ab-$v-$i.json
done; pack; done
t cuda-tests timeout 150 build-check/bin/opkit_cuda_tests
t conformance timeout 100 build-check/bin/opkit-conformance --vendor cuda
pack
cat $R/times.txt
