#!/usr/bin/env bash
# Session 2026-11-28b, device call 3: the candidate final build (rms_norm 2-byte exact
# four-pack backward, kRowGridWaves) against HEAD a872a91 (build-old): tests, A/B of every
# op (opkit only, alternating twice), the peers for the ops whose launch changed, and ncu
# of layer_norm backward bf16 8192x8192, opkit against Liger.
set -u
R=$(mktemp -d); mkdir -p $R
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
nvidia-smi > $R/nvidia-smi.txt 2>&1
t cuda-tests build-gpu6/bin/opkit_cuda_tests
t conformance build-gpu6/bin/opkit-conformance --vendor cuda
S=build-gpu6/tests/hip_on_cuda
t rocm-tests-ops env LD_LIBRARY_PATH=$PWD/$S/hip:$PWD/$S/hipblaslt:$PWD/$S/rocblas build-gpu6/bin/opkit_rocm_tests "[ops]"
for i in 1 2; do for b in old gpu6; do
  t ab-$b-$i env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm,softmax,cross_entropy --dtypes bf16,f32 --out $R/ab-$b-$i.json
done; done
t compare env OPKIT_LIBRARY=$PWD/build-gpu6/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm,softmax,cross_entropy --dtypes bf16,f32 --out $R/compare.json
t ncu-ln env OPKIT_LIBRARY=$PWD/build-gpu6/lib/libopkit.so.1 ncu --clock-control none -k 'regex:opk_ln_bwd|_layer_norm_backward' --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis python3 build-gpu6/devrun/ncu_ln.py
tar czf $OUT/r3.tgz -C $R .
