#!/usr/bin/env bash
# Session 2026-11-28 (eighth), device call 4: which of call 3's three changes gained and
# which lost. Builds: old (5e17c75), vA (bf16 packs a word at a time), vAB (and no FADD
# of a zero weight offset), vALL (and the reduction's last stage through shuffles: call 3's
# build), alternating twice, opkit alone; then conformance of vA and vAB on cuda, and of
# vAB's rocm vendor over HIP-over-CUDA.
set -u
R=$(mktemp -d)
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r4.tgz -C $R .; }
O="norm_forward,norm_backward,softmax,cross_entropy"
for i in 1 2; do for b in old vA vAB vALL; do
  t ab-$b-$i timeout 60 env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops $O --dtypes bf16,f32 --out $R/ab-$b-$i.json
done; pack; done
S=$PWD/build-gpu/tests/hip_on_cuda; HIP=$S/hip:$S/hipblaslt:$S/rocblas
t conformance-vA build-vA/bin/opkit-conformance --vendor cuda
t conformance-vAB build-vAB/bin/opkit-conformance --vendor cuda
t rocm-conformance-vAB env LD_LIBRARY_PATH=$HIP build-vAB/bin/opkit-conformance --vendor rocm
pack
