#!/usr/bin/env bash
# Session 2026-11-29 (fifteenth), device call 5: the CPU exp loops at sixteen lanes (f32x16:
# one zmm register in the AVX-512 clone, where GCC's autovectorizer had used two ymm) on the
# 16-core host: softmax and cross-entropy against PyTorch CPU, HEAD's libopkit (build-old)
# and the new one (build-new) alternating, twice at 16 threads and once at one.
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r5.tgz -C $R .; }
lscpu > $R/lscpu.txt
for i in 1 2; do for b in old new; do
  t cc16-$b-$i timeout 60 env PYTHONPATH=$PWD/python OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/cpu_compare.py --ops softmax,cross_entropy --threads 16 --reps 21 --out $R/cc16-$b-$i.json
done; pack; done
for b in old new; do
  t cc1-$b timeout 60 env PYTHONPATH=$PWD/python OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/cpu_compare.py --ops softmax,cross_entropy --threads 1 --reps 11 --out $R/cc1-$b.json
done
cat $R/times.txt
pack
