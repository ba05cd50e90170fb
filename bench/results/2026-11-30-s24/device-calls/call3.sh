#!/usr/bin/env bash
# Twenty-fourth session, call 3, on build-check = 1f6e2a5's build (HEAD's vendor code).
# Calls 1-2: one bulk L2 prefetch a block of the row 4 MB of rows ahead made every fixed-
# group forward 1-7 % faster. The same idea elsewhere, two variants (var.tar.xz; both also
# carry the forwards' 4 MB prefetch, which these ops do not run):
#   vS1: the norm stash backwards prefetch this block's part of x and dy of its row one
#        ring round past the ring's own request; the dense embedding forward's block
#        prefetches its part of the table row of the id 4 MB of rows ahead;
#   vSx: the same with x alone in the backwards and 2 MB ahead in the embedding forward.
# Two rounds each alternating with the base, norm backwards and embedding, bf16 and fp32.
# Carry build-check, build-var/var.tar.xz. About 200 s.
. bench/device_call.sh r3
dc_variants
dc_ab_rounds bS1 'S1' norm_backward,embedding bf16,f32 2
dc_ab_rounds bSx 'Sx' norm_backward,embedding bf16,f32 2
cat $R/times.txt
cat $R/ab-bS1.txt $R/ab-bSx.txt
