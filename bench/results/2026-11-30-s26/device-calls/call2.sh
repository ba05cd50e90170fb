#!/usr/bin/env bash
# Twenty-sixth session, call 2. build-check = HEAD (052a443). Call 1's profile: every
# LDGSTS.E.BYPASS.128 (cp.async.cg 16 B) of the fp32 split norm backwards asks L2 for 32
# sectors where its addresses span 16, and the crossbar carries 1.07 GB to the SMs for
# 537 MB of x and dy read from DRAM. Variant vca (build-var/var.tar.xz): every stash copy
# as cp.async.ca (through L1, bench/experiments/stash-cp-async-ca.patch): does L1 merge
# the two requests for a sector, and is it faster? A/B two rounds (norm backwards bf16 and
# f32, cross-entropy bf16), then the sector counters of base and variant.
# Carry build-check, build-var/var.tar.xz. About 400 s.
. bench/device_call.sh r2
dc_variants
M=l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,gpu__time_duration.sum
for dt in f32 bf16; do
  t ncu-base-$dt timeout 100 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB ncu --clock-control none --metrics $M \
      -k 'regex:_bwd_stash_' python3 bench/ncu_ops.py --ops norms --dtype $dt
  t ncu-vca-$dt timeout 100 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$PWD/var/vca/libopkit_vendor_cuda.so \
      ncu --clock-control none --metrics $M -k 'regex:_bwd_stash_' python3 bench/ncu_ops.py --ops norms --dtype $dt
  pack
done
dc_ab_rounds ca 'ca' norm_backward bf16,f32 2
dc_ab_rounds cace 'ca' cross_entropy bf16 2
cat $R/times.txt
cat $R/ab-ca.txt $R/ab-cace.txt
grep -E 'opk_|bytes|sectors|hit|duration' $R/ncu-*-f32.txt | head -40
