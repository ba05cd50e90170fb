#!/usr/bin/env bash
# Session 2026-11-28 (seventh), device call 1: every GPU check on HEAD (f9f8e7e: the
# sixth session's CPU defaults, never run on a GPU machine), then the CPU tables of issue
# 14 items 3-5 on the 16-core host: cpu_compare (1 and 16 threads), the dispatch overhead,
# and the blas vendor's matmul with Debian's OpenBLAS 0.3.21 and oneDNN 2.6.3 carried as
# .cpulibs/cpulibs.tar.xz (libdnnl.so.2, libopenblas.so.0 and what they link).
set -u
R=$(mktemp -d); mkdir -p $R/check
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
nvidia-smi > $R/nvidia-smi.txt 2>&1; lscpu > $R/lscpu.txt 2>&1
t gpu-check env OUT=$R/check scripts/gpu-check.sh build-gpu
tar czf $OUT/r1a.tgz -C $R .
mkdir -p /tmp/cpulibs && tar xJf .cpulibs/cpulibs.tar.xz -C /tmp/cpulibs && cp .cpulibs/libbenchmark.so.1debian /tmp/cpulibs/
export LD_LIBRARY_PATH=/tmp/cpulibs
python3 -c "import torch, numpy; print(torch.__version__, torch.backends.cpu.get_cpu_capability(), numpy.__version__)" > $R/torch.txt 2>&1
B=$PWD/build-gpu
t cc-1 env OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY=$B/lib/libopkit.so.1 python3 bench/cpu_compare.py --reps 11 --out $R/cc-1.json
tar czf $OUT/r1b.tgz -C $R .
for i in 1 2; do
  t dispatch-$i env OPKIT_VENDORS_DISABLE=cuda,rocm taskset -c 2 $B/bin/bench_dispatch_overhead --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
done
M="env OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_VENDOR_PATH=$B/vendors/blas OPKIT_BLAS_LIBRARY=libopenblas.so.0 OPKIT_LIBRARY=$B/lib/libopkit.so.1"
t mm-default $M python3 bench/cpu_matmul_compare.py --skip-default --reps 3 --out $R/mm-default.json
t mm-skylakex env OPENBLAS_CORETYPE=SkylakeX $M python3 bench/cpu_matmul_compare.py --skip-default --reps 3 --out $R/mm-skylakex.json
tar czf $OUT/r1.tgz -C $R .
