#!/usr/bin/env bash
# Session 2026-11-28d, device call 3: the API tests after a01efd2; the forward row kernels
# on the H200: launch-shape sweep at gpu_compare's shapes, the shared-memory-staged softmax,
# and ncu of opkit's and Liger's forwards at 4096x16384.
set -u
R=$(mktemp -d); mkdir -p $R
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
t api-tests build-gpu6/bin/opkit_api_tests
t smem-rows build-gpu6/devrun/smem_rows
t ncu-fwd env OPKIT_LIBRARY=$PWD/build-gpu6/lib/libopkit.so.1 ncu --clock-control none -k 'regex:opk_(rms|ln|softmax)_fwd|_rms_norm_forward|_layer_norm_forward|_softmax' --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section SchedulerStats --section InstructionStats python3 build-gpu6/devrun/ncu_fwd.py
t rfv build-gpu6/devrun/rfv
tar czf $OUT/r6.tgz -C $R .
