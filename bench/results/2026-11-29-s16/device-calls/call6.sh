#!/usr/bin/env bash
# Session 2026-11-29 (sixteenth), device call 6, at 8722bb5 plus gpu-check.sh's new
# sanitizer steps: stash-memcheck (memcheck over the one-block norm stash backwards) and
# stash-racecheck (racecheck over the fp32 kernels split over a cluster of two blocks),
# each a run of gpu-check.sh of its own, side by side, within the session's last device time.
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
for s in memcheck racecheck; do
  ( OUT=$R/$s OPKIT_GPU_CHECK_ONLY="^stash-$s\$" timeout 225 scripts/gpu-check.sh build-check > $R/$s.txt 2>&1; echo "rc $? after $SECONDS s" >> $R/$s.txt ) &
done
wait
tar czf $OUT/r6.tgz -C $R .
tail -n 4 $R/memcheck.txt $R/racecheck.txt
