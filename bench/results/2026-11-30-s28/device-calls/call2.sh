#!/usr/bin/env bash
# Twenty-eighth session, call 2. Carry build-check (b54f5b1's vendors, the base), build-var,
# .whl. Variants (build-var/var.tar.xz, all on 9a7ec40's tree):
#   vland     9a7ec40 itself: the forwards' weight pack ahead as landed (output_pass; its
#             SASS differs from call 1's patch in register choice): its A/B and peer runs;
#   vb4/b2/b1 bench/experiments/norm-bwd-l2-ahead.patch with OPK_EXP_BWD_AHEAD 4 / 2 / 1 MB:
#             the norm backwards without a next-row prefetch (fp32 register-sum kernels,
#             the 2-byte layer_norm exact kernels) ask L2 for x's and dy's row that many
#             bytes of rows ahead; nothing is in flight while their block reduces and
#             writes dx (Nsight Compute, call 1: opk_ln_bwd_regs_f32 at DRAM 82 %, 0.56
#             eligible warps a scheduler, long-scoreboard stalls half the cycles).
# About 420 s.
. bench/device_call.sh r3
dc_liger
dc_variants
for i in 1 2; do
  for v in base b4 b2 b1; do dc_ab bwd-$v-$i $v norm_backward bf16,f32; pack; done
  for v in base land; do dc_ab fwd-$v-$i $v norm_forward bf16,f32; pack; done
done
for v in b4 b2 b1; do python3 bench/ab_table.py $R bwd-base bwd-$v > $R/ab-bwd-$v.txt 2>&1; done
python3 bench/ab_table.py $R fwd-base fwd-land > $R/ab-fwd-land.txt 2>&1
pack
dc_tests vb4 "ops: layer_norm*,ops: rms_norm*" b4
pack
for dt in f32 bf16; do
  t compare-norms-$dt timeout 100 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$PWD/var/vland/libopkit_vendor_cuda.so python3 bench/gpu_compare.py --dtypes $dt --ops rms_norm,layer_norm --out $R/compare-norms-$dt.json
  pack
done
cat $R/times.txt $R/ab-*.txt
for f in vb4-tests vb4-tests-rocm; do tail -n 2 $R/$f.txt; done; tail -qn 1 $R/vb4-conformance*.txt
python3 bench/perf_table.py --summary $R/compare-norms-bf16.json | grep -E 'norm'
python3 bench/perf_table.py --summary $R/compare-norms-f32.json | grep -E 'norm'
