#!/usr/bin/env bash
# gpu-perf.sh BUILD OUT [parts] — the performance runs of docs/PERFORMANCE.md on a GPU
# machine, in one call: parts is a comma list of
#   compare  bench/gpu_compare.py, bf16 and f32, opkit vs eager / torch.compile / Liger
#   ncu      Nsight Compute on the kernels that miss their targets (bench/ncu_ops.py)
#   cpu      bench/cpu_compare.py and bench/cpu_matmul_compare.py (opkit CPU vs PyTorch CPU)
# (default: all three). Liger-Kernel travels as a wheel in .whl/ (device README). Each
# part writes its log and JSON under OUT; a part that fails is reported and the next runs.
set -uo pipefail
build=$(cd "$1" && pwd); out=$2; parts=${3:-compare,ncu,cpu}
cd "$(dirname "$0")/.."
mkdir -p "$out"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} OPKIT_LIBRARY=$build/lib/libopkit.so.1
part() { [[ ",$parts," == *",$1,"* ]]; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; lscpu | head -20
  python3 -c 'import torch; print("torch", torch.__version__, "threads", torch.get_num_threads())'; } > "$out/machine.txt" 2>&1
if part compare; then
  for dt in bf16 f32; do
    t0=$SECONDS
    python3 bench/gpu_compare.py --dtypes $dt --out "$out/compare-$dt.json" > "$out/compare-$dt.txt" 2>&1 ||
      echo "compare $dt failed (rc $?)" >> "$out/errors.txt"
    echo "compare $dt: $((SECONDS - t0)) s" >> "$out/times.txt"
  done
  python3 bench/perf_table.py "$out"/compare-*.json > "$out/tables.md" 2>&1
fi
if part ncu; then
  t0=$SECONDS
  ncu --clock-control none -k regex:opk_ --section SpeedOfLight --section Occupancy \
      --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats \
      --section SchedulerStats python3 bench/ncu_ops.py --dtype bf16 > "$out/ncu-bf16.txt" 2>&1 ||
    echo "ncu failed (rc $?)" >> "$out/errors.txt"
  echo "ncu: $((SECONDS - t0)) s" >> "$out/times.txt"
fi
if part cpu; then
  for b in cpu_compare cpu_matmul_compare; do
    [ -f bench/$b.py ] || { echo "no bench/$b.py" >> "$out/errors.txt"; continue; }
    t0=$SECONDS
    python3 bench/$b.py --out "$out/$b.json" > "$out/$b.txt" 2>&1 || echo "$b failed (rc $?)" >> "$out/errors.txt"
    echo "$b: $((SECONDS - t0)) s" >> "$out/times.txt"
  done
fi
cat "$out/times.txt" "$out/errors.txt" 2>/dev/null
# OPKIT_PACK_RESULTS=1: everything as one archive, $out/results.tgz (as in gpu-check.sh).
if [ "${OPKIT_PACK_RESULTS:-0}" = 1 ]; then
  pack=$(mktemp) && tar czf "$pack" -C "$out" . && find "$out" -mindepth 1 -delete && mv "$pack" "$out/results.tgz"
fi
