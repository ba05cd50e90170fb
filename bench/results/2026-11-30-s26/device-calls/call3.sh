#!/usr/bin/env bash
# Twenty-sixth session, call 3. build-check = HEAD (052a443) + the fp32 cluster norm
# backwards' stash copies through L1 (cp.async.ca, only K > 1 && fp32; the tree that would
# land). Variants (build-var/var.tar.xz): vhead = HEAD's vendors (ratio head / new: > 1,
# the change is faster); vce = this tree + cross-entropy's cluster stash (K > 1) through
# L1 too (bench/experiments/ce-stash-cluster-through-l1.patch; ratio < 1: vce faster).
# Then the sector counters of the cross-entropy stash kernels, base and vce.
# Carry build-check, build-var. About 200 s.
. bench/device_call.sh r3
dc_variants
dc_ab_rounds nh 'head' norm_backward bf16,f32 2
dc_ab_rounds ce 'ce' cross_entropy bf16,f32 2
M=l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,gpu__time_duration.sum
for dt in bf16 f32; do
  t ncu-base-$dt timeout 100 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB ncu --clock-control none --metrics $M \
      -k 'regex:ce_fwd_stash' python3 bench/ncu_ops.py --ops ce --dtype $dt
  t ncu-vce-$dt timeout 100 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$PWD/var/vce/libopkit_vendor_cuda.so \
      ncu --clock-control none --metrics $M -k 'regex:ce_fwd_stash' python3 bench/ncu_ops.py --ops ce --dtype $dt
  pack
done
cat $R/times.txt
cat $R/ab-nh.txt $R/ab-ce.txt
for f in $R/ncu-*.txt; do echo "== $f"; grep -E '^  opk_|bytes|sectors|hit|duration' $f | sed 's/ (.*//; s/  */ /g'; done
