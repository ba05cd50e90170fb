#!/usr/bin/env bash
# Twenty-fourth session, call 2, on build-check = 1f6e2a5's build (HEAD's vendor code).
# Call 1: one bulk L2 prefetch a block of the row a resident wave ahead (vpf1, 8.4 MB of
# rows ahead at every bf16 shape) made bf16 layer_norm's forward 1.3-4.5 % faster and
# rms_norm / softmax up to 3 % slower; 17 MB ahead (fp32 rows of 8192-16384, and vpf2)
# 26-39 % slower. So the distance in bytes: (a) variants vpfA / vpfB / vpfC = the row
# OPK_PREFETCH_KB / row bytes ahead at 2048 / 4096 / 1024 KB, two rounds each alternating
# with the base; (b) bench/copy_sizes.py (call 1's failed: gpu_compare imports opkit).
# Carry build-check, build-var/var.tar.xz. About 260 s.
. bench/device_call.sh r2
dc_variants
t copy-sizes timeout 60 env OPKIT_LIBRARY=$DC_LIB python3 bench/copy_sizes.py
pack
dc_ab_rounds fwdA 'pfA' norm_forward,softmax_forward bf16,f32 2
dc_ab_rounds fwdB 'pfB' norm_forward,softmax_forward bf16,f32 2
dc_ab_rounds fwdC 'pfC' norm_forward,softmax_forward bf16,f32 2
cat $R/times.txt
cat $R/copy-sizes.txt $R/ab-fwdA.txt $R/ab-fwdB.txt $R/ab-fwdC.txt
