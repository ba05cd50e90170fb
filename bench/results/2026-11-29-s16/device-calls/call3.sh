#!/usr/bin/env bash
# Session 2026-11-29 (sixteenth), device call 3: the stash backwards' per-row addressing
# (vE: exact kernels with the ring's slot count and packs compile-time constants and 32-bit
# pack indices, OPK_EXP_STASH_LEAN) against 8722bb5's vendor (build-check), alternating
# twice over the 2-byte and fp32 norm backwards; the stash test case on vE.
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r3.tgz -C $R .; }
mkdir -p var && tar xJf build-var/var.tar.xz -C var
lib=$PWD/build-check/lib/libopkit.so.1
vE=$PWD/var/vE/libopkit_vendor_cuda.so
env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vE python3 -c "import opkit; [print(v) for v in opkit.vendors()]" > $R/vendors-E.txt 2>&1
for i in 1 2; do for v in new E; do
  vp=; [ $v = E ] && vp=$vE
  t ab-$v-$i timeout 90 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --impls opkit --ops norm_backward --dtypes bf16,f16,f32 --out $R/ab-$v-$i.json
done; pack; done
t stash-test-E timeout 150 env OPKIT_VENDOR_PATH=$vE build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
pack
cat $R/times.txt
