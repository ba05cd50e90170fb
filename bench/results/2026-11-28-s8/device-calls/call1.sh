#!/usr/bin/env bash
# Session 2026-11-28 (eighth), device call 1: branch wip/emb-fwd-2d (the runtime layer's
# second grid dimension for both GPU vendors, the embedding forward on it, a dense kernel
# for the common layout), rebased on ff55c5b: the embedding variants and the library's
# kernel against eager and torch.compile first, then every GPU check (scripts/gpu-check.sh:
# the launch change reaches every kernel of both vendors).
set -u
R=$(mktemp -d)
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r1.tgz -C $R .; }
nvidia-smi > $R/nvidia-smi.txt 2>&1
t efv build-gpu/devrun/efv
t compare-emb env OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit,eager,compile --ops embedding_forward --dtypes bf16,f32 --out $R/compare-emb.json
pack
mkdir -p $R/check
t gpu-check env OUT=$R/check scripts/gpu-check.sh build-gpu
pack
