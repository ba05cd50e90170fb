#!/usr/bin/env bash
# Session 2026-11-28 (seventh), device call 4: the embedding forward with the row part
# fixed per block (no division in its loop): the variants, against eager and
# torch.compile, the cuda embedding tests, conformance of every op on cuda, the rocm
# vendor's embedding tests and its embedding conformance over HIP-over-CUDA.
set -u
R=$(mktemp -d)
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r4.tgz -C $R .; }
S=$PWD/build-gpu/tests/hip_on_cuda; HIP=$S/hip:$S/hipblaslt:$S/rocblas
t efv build-gpu/devrun/efv
t compare-emb env OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit,eager,compile --ops embedding_forward --dtypes bf16,f32 --out $R/compare-emb.json
pack
t cuda-tests-emb build-gpu/bin/opkit_cuda_tests "*embedding*"
t conformance build-gpu/bin/opkit-conformance --vendor cuda
t rocm-tests-emb env LD_LIBRARY_PATH=$HIP build-gpu/bin/opkit_rocm_tests "*embedding*"
t rocm-conformance-emb env LD_LIBRARY_PATH=$HIP build-gpu/bin/opkit-conformance --vendor rocm --ops embedding_forward,embedding_backward
pack
