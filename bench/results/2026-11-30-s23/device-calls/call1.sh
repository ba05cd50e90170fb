#!/usr/bin/env bash
# Twenty-third session, call 1 (prepared in the twenty-second). (a) The whole GPU check of the
# twenty-second session's final HEAD (build-check rebuilt from it): its call 6 checked
# 5d05540, which still had the layer_norm pair kernels (reverted in cf5f257) and failed
# only their racecheck step; HEAD's norms code is bbf5f8e's. (b) Dispatch overhead on the
# 16-core host with bench_dispatch_overhead's new _api_dlopen column (the real
# libopkit.so.1 opened by dlopen, as Python opens it): HEAD's library (no TLS descriptors,
# since 5d05540) against the same code built with -mtls-dialect=gnu2
# (build-var/tls-gnu2/libopkit.so.1, through OPKIT_BENCH_LIBRARY), three rounds
# alternating, pinned to one core. Carry build-check (with bin/bench_dispatch_overhead),
# build-var/tls-gnu2 and build-var/libbenchmark.so.1debian. About 470 s.
. bench/device_call.sh r1
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
mkdir -p /tmp/benchlib && cp build-var/libbenchmark.so.1debian /tmp/benchlib/
for i in 1 2 3; do
  for v in gnu gnu2; do
    lib=$PWD/build-check/lib/libopkit.so.1; [ $v = gnu2 ] && lib=$PWD/build-var/tls-gnu2/libopkit.so.1
    t dispatch-$v-$i env LD_LIBRARY_PATH=/tmp/benchlib OPKIT_BENCH_LIBRARY=$lib OPKIT_VENDORS_DISABLE=cuda,rocm \
      taskset -c 2 build-check/bin/bench_dispatch_overhead --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
    pack
  done
done
cat $R/times.txt
tail -12 $R/check-split.txt
grep -h median $R/dispatch-*.txt
