#!/usr/bin/env bash
# Twenty-sixth session, call 8. Dispatch overhead (issue 14 item 5) on the 16-core host:
# build-check = 0c30f67's build (its bench_dispatch_overhead, its libopkit.so.1) against
# build-var/dnew = the build of the scratch rows' commit (core/cpu/rows.cpp: one TLS lookup
# a scratch() call instead of two through the shared library; its own
# bench_dispatch_overhead, whose direct column links the same objects statically, and its
# libopkit.so.1 through OPKIT_BENCH_LIBRARY), three rounds alternating, pinned to core 2,
# as the twenty-third session's call 1.
# Carry build-check, build-var (dnew/, libbenchmark.so.1debian). About 210 s.
. bench/device_call.sh r8
mkdir -p /tmp/benchlib && cp build-var/libbenchmark.so.1debian /tmp/benchlib/
for i in 1 2 3; do
  for v in head new; do
    d=$PWD/build-check; [ $v = new ] && d=$PWD/build-var/dnew
    t dispatch-$v-$i env LD_LIBRARY_PATH=/tmp/benchlib OPKIT_BENCH_LIBRARY=$d/lib/libopkit.so.1 OPKIT_VENDORS_DISABLE=cuda,rocm \
      taskset -c 2 $d/bin/bench_dispatch_overhead --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
    pack
  done
done
cat $R/times.txt
grep -h median $R/dispatch-*.txt
D=$R; python3 bench/dispatch_table.py HEAD=$D/dispatch-head-1.txt,$D/dispatch-head-2.txt,$D/dispatch-head-3.txt \
    new=$D/dispatch-new-1.txt,$D/dispatch-new-2.txt,$D/dispatch-new-3.txt
