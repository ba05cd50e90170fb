#!/usr/bin/env bash
# Forty-fifth session, call 3: bench/experiments/norm_backward_red.cu again (built on the
# build VM, carried in build-var/exp/), with two more kinds of line: the library's stash
# kernel with no dweight wanted (what its dweight costs it), and R rows a block at 256
# threads of eight packs (the row loop not unrolled: 220 registers, one block an SM).
# Carry build-var.
. bench/device_call.sh r3
cat build-check/HEAD.txt
cp build-var/exp/ptxas_red.txt $R/
t red timeout 240 build-var/exp/norm_backward_red
cat $R/times.txt; grep 16384 $R/red.txt
pack
