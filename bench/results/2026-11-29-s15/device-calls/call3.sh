#!/usr/bin/env bash
# Session 2026-11-29 (fifteenth), device call 3, at 01dff2f (the fp32 x4 fixed forwards):
# (a) the whole GPU check (scripts/gpu-check-split.sh build-check), which call 2 ran out of
# time for; (b) every op against the peers in one run, fp32 then bf16, as far as the
# call's 600 s allow (each skipped, and said so, when too little time is left).
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r3.tgz --exclude=triton --exclude=inductor -C $R .; }
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=420; t check-split scripts/gpu-check-split.sh build-check )
pack
for dt in f32 bf16; do
  if [ $SECONDS -gt 480 ]; then echo "compare-$dt skipped: $SECONDS s used" | tee -a $R/times.txt; continue; fi
  t compare-$dt timeout $((560 - SECONDS)) env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/gpu_compare.py --dtypes $dt --out $R/compare-$dt.json
  pack
done
cat $R/times.txt
pack
