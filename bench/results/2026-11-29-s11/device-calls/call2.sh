#!/usr/bin/env bash
# Session 2026-11-29 (eleventh), device call 2: ce_stash_cluster (the cross-entropy forward
# with dlogits reading each row once: stashed in shared memory across a thread-block
# cluster), then the bf16 softmax backward at one thread on the 16-core host: the C program
# sm_bwd_offsets (the three buffers at chosen 4 KiB offsets) and cpu_compare's softmax rows,
# twice each (the op read 2.55x PyTorch in call 1).
set -u
R=$(mktemp -d)
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r2.tgz -C $R .; }
t stash build-gpu/devrun/ce_stash_cluster
pack
C="env OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1"
for i in 1 2; do
  t offsets-$i $C OPKIT_NUM_THREADS=1 build-gpu/devrun/sm_bwd_offsets
  t cc-softmax-$i $C python3 bench/cpu_compare.py --ops softmax --threads 1 --out $R/cc-softmax-$i.json
done
pack
