#!/usr/bin/env bash
# Twenty-ninth session, call 4, on build-check = the rope_qk build (opkit_rope_qk_forward /
# _backward, 1.2: q and k in one launch, opk_rope_qk). Carry build-check, build-var (vold:
# c996484's vendors, vendor ABI 1.0, without rope_qk: libopkit serves rope_qk through them
# as two rope calls, the composite default), .whl. About 330 s.
# 1. rope's test cases (one tensor, q and k) on cuda and on rocm over the HIP-over-CUDA shim,
#    and conformance of both.
# 2. A/B, three rounds: rope (one tensor; q+k) through vold (two rope calls) against this
#    build (one launch), and this build making two calls (OPKIT_BENCH_ROPE_TWO_CALLS=1).
# 3. rope against the peers in one run a dtype (the standing table's rope rows).
. bench/device_call.sh r4
dc_variants
dc_liger
dc_tests rope "ops: rope*"
pack
for i in 1 2 3; do
  dc_ab rope-old-$i old rope bf16,f32; pack
  dc_ab rope-new-$i base rope bf16,f32; pack
  export OPKIT_BENCH_ROPE_TWO_CALLS=1; dc_ab rope-two-$i base rope bf16,f32; unset OPKIT_BENCH_ROPE_TWO_CALLS; pack
done
python3 bench/ab_table.py $R rope-old rope-new > $R/ab-rope-old-new.txt 2>&1
python3 bench/ab_table.py $R rope-two rope-new > $R/ab-rope-two-new.txt 2>&1
pack
for dt in bf16 f32; do
  t compare-rope-$dt timeout 120 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --ops rope --out $R/compare-rope-$dt.json
  pack
done
cat $R/times.txt $R/ab-rope-*.txt
for f in rope-tests rope-tests-rocm; do tail -n 3 $R/$f.txt; done; tail -qn 1 $R/rope-conformance*.txt
python3 bench/perf_table.py --summary $R/compare-rope-bf16.json | grep -E 'rope'
python3 bench/perf_table.py --summary $R/compare-rope-f32.json | grep -E 'rope'
