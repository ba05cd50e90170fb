#!/usr/bin/env bash
# Session 2026-11-28 (seventh), device call 2: the embedding forward's variants on the
# GPU (bench/experiments/embedding_forward_variants.cu, built as build-gpu/devrun/efv);
# then on the 16-core host the CPU pool's lock-free chunk claiming (build-cpu: the new
# pool; build-gpu: HEAD f9f8e7e), A/B at 16 threads alternating twice and the new build's
# full table, the dispatch overhead and the blas vendor's matmul (call 1 ran out of time
# before these).
set -u
R=$(mktemp -d)
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r2.tgz -C $R .; }
t efv build-gpu/devrun/efv
pack
mkdir -p /tmp/cpulibs && tar xJf .cpulibs/cpulibs.tar.xz -C /tmp/cpulibs && cp .cpulibs/libbenchmark.so.1debian /tmp/cpulibs/
export LD_LIBRARY_PATH=/tmp/cpulibs OPKIT_VENDORS_DISABLE=cuda,rocm
for i in 1 2; do for b in gpu cpu; do
  t cc16-$b-$i env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/cpu_compare.py --threads 16 --reps 21 --out $R/cc16-$b-$i.json
done; done
pack
t cc-new env OPKIT_LIBRARY=$PWD/build-cpu/lib/libopkit.so.1 python3 bench/cpu_compare.py --reps 11 --out $R/cc-new.json
pack
for i in 1 2; do
  t dispatch-$i taskset -c 2 build-gpu/bin/bench_dispatch_overhead --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
done
pack
M="env OPKIT_VENDOR_PATH=$PWD/build-gpu/vendors/blas OPKIT_BLAS_LIBRARY=libopenblas.so.0 OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1"
t mm-default $M python3 bench/cpu_matmul_compare.py --skip-default --reps 3 --out $R/mm-default.json
pack
t mm-skylakex env OPENBLAS_CORETYPE=SkylakeX $M python3 bench/cpu_matmul_compare.py --skip-default --reps 3 --out $R/mm-skylakex.json
pack
