#!/usr/bin/env bash
# Twenty-eighth session, call 4. Carry build-check (7c9f129, the base), build-var. Variants
# (build-var/var.tar.xz, on 7c9f129's tree):
#   vln8    layer_norm's forward runs the weight ahead in its fixed-group kernels of eight
#           packs too (the fp32 rows of 8192 and 16384: g256 / g512; 9a7ec40 kept them to
#           four packs, untried; the wide block kernel spilled 8 bytes with it and is left
#           out): fp32 layer_norm forward is 0.97-0.98x Liger at 8192x8192;
#   vstruct bench/experiments/bulk-row-ring-struct.patch: the bulk ring's slot bookkeeping
#           as a struct beside RowRing (a refactor; it changes the bulk kernel's SASS);
#   vboth   both, for the tests: the norm cases on cuda and rocm-over-CUDA, conformance,
#           and the bulk kernel's case under racecheck and memcheck.
# About 250 s.
. bench/device_call.sh r5
dc_variants
for i in 1 2 3; do
  for v in base ln8; do dc_ab fwd-$v-$i $v norm_forward f32; pack; done
  for v in base struct; do dc_ab bwd-$v-$i $v rms_norm_backward f32; pack; done
done
python3 bench/ab_table.py $R fwd-base fwd-ln8 > $R/ab-fwd-ln8.txt 2>&1
python3 bench/ab_table.py $R bwd-base bwd-struct > $R/ab-bwd-struct.txt 2>&1
pack
dc_tests vboth "ops: layer_norm*,ops: rms_norm*" both
pack
for tool in racecheck memcheck; do
  t both-bulk-$tool timeout 150 env OPKIT_VENDOR_PATH=$PWD/var/vboth/libopkit_vendor_cuda.so compute-sanitizer --tool $tool --error-exitcode 1 --kernel-name kns=_stash_f32_s2_exact build-check/bin/opkit_cuda_tests "ops: rms_norm backward through the bulk-ring stash kernel"
  pack
done
cat $R/times.txt $R/ab-*.txt
for f in vboth-tests vboth-tests-rocm both-bulk-racecheck both-bulk-memcheck; do tail -n 3 $R/$f.txt; done
tail -qn 1 $R/vboth-conformance*.txt
