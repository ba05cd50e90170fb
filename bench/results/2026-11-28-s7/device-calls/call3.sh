#!/usr/bin/env bash
# Session 2026-11-28 (seventh), device call 3: the embedding forward's new kernel (a block
# per part of a row, two packs a thread): the variants again (the library's launch now),
# against eager and torch.compile, the cuda tests, conformance, the rocm vendor's tests and
# conformance over HIP-over-CUDA. Then on the 16-core host, with cpu_compare's new settle
# (each library timed after the other's polling threads went to sleep): the CPU pool A/B
# at 16 threads (build-head: f9f8e7e's pool; build-cpu: lock-free claiming) alternating
# twice, the new build's full table, and the blas vendor's matmul at 16 threads.
set -u
R=$(mktemp -d)
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r3.tgz -C $R .; }
S=$PWD/build-gpu/tests/hip_on_cuda; HIP=$S/hip:$S/hipblaslt:$S/rocblas
t efv build-gpu/devrun/efv
t compare-emb env OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit,eager,compile --ops embedding --dtypes bf16,f32 --out $R/compare-emb.json
pack
t cuda-tests build-gpu/bin/opkit_cuda_tests
t conformance build-gpu/bin/opkit-conformance --vendor cuda
t rocm-tests-emb env LD_LIBRARY_PATH=$HIP build-gpu/bin/opkit_rocm_tests "*embedding*"
t rocm-conformance env LD_LIBRARY_PATH=$HIP build-gpu/bin/opkit-conformance --vendor rocm
pack
mkdir -p /tmp/cpulibs && tar xJf .cpulibs/cpulibs.tar.xz -C /tmp/cpulibs
export LD_LIBRARY_PATH=/tmp/cpulibs OPKIT_VENDORS_DISABLE=cuda,rocm
for i in 1 2; do for b in head cpu; do
  t cc16-$b-$i env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/cpu_compare.py --threads 16 --reps 21 --out $R/cc16-$b-$i.json
done; pack; done
t cc-new env OPKIT_LIBRARY=$PWD/build-cpu/lib/libopkit.so.1 python3 bench/cpu_compare.py --reps 11 --out $R/cc-new.json
pack
M="env OPKIT_VENDOR_PATH=$PWD/build-gpu/vendors/blas OPKIT_BLAS_LIBRARY=libopenblas.so.0 OPKIT_LIBRARY=$PWD/build-cpu/lib/libopkit.so.1"
t mm16-default $M python3 bench/cpu_matmul_compare.py --threads 16 --skip-default --reps 5 --out $R/mm16-default.json
t mm16-skylakex env OPENBLAS_CORETYPE=SkylakeX $M python3 bench/cpu_matmul_compare.py --threads 16 --skip-default --reps 5 --out $R/mm16-skylakex.json
pack
