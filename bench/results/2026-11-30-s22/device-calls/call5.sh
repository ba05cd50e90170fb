#!/usr/bin/env bash
# Twenty-second session, call 5. (a) vpln (bench/experiments/norm-stash-pair-sums-ln.patch
# on f590e64: call 3's pairs of blocks merging their column sums, for layer_norm's 2-byte
# stash backwards only): the norm test cases on cuda through vpln and on rocm over the shim,
# conformance of both; the norm backwards, bf16 and f16, three rounds alternating against
# build-check's own vendor (f590e64), each packed; kernel_breakdown of vpln's bf16 norm
# backwards. (b) The blas vendor's bf16 matmul on the 16-core host: b6a7765's (the fp32 c
# block rounded in oneDNN's OpenMP team) against bbf5f8e's (rounded on the calling thread),
# five alternating rounds with PyTorch each, 16 threads at 1024^3 and 4096^3, one thread at
# 1024^3 (where nothing should change). Carry build-check (f590e64 + vendors-blas),
# build-var/var.tar.xz (vpln), build-var/cpulibs.tar.xz and build-var/blas-base. ~300 s.
. bench/device_call.sh r5
dc_variants
V=$PWD/var/vpln/libopkit_vendor_cuda.so
dc_tests vpln "ops: rms_norm*,ops: layer_norm*,ops: norm backwards*" pln
pack
dc_ab_rounds nb pln rms_norm_backward,layer_norm_backward bf16,f16 3
t kb-nb timeout 100 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$V python3 bench/kernel_breakdown.py --dtypes bf16 --ops rms_norm_backward,layer_norm_backward
pack
mkdir -p /tmp/cpulibs && tar xJf build-var/cpulibs.tar.xz -C /tmp/cpulibs
for run in 16-1024 1-1024 16-4096; do
  th=${run%-*} n=${run#*-}
  for v in base new; do
    vdir=$PWD/build-check/vendors-blas; [ $v = base ] && vdir=$PWD/build-var/blas-base
    t mm$th-$n-$v timeout 100 env LD_LIBRARY_PATH=/tmp/cpulibs PYTHONPATH=$PWD/python OPKIT_VENDORS_DISABLE=cuda,rocm \
      OPKIT_VENDOR_PATH=$vdir OPKIT_BLAS_LIBRARY=libopenblas.so.0 OPKIT_LIBRARY=$DC_LIB \
      python3 bench/cpu_matmul_compare.py --skip-default --shapes $n^3 --threads $th --reps 5 --rounds 5 --out $R/mm$th-$n-$v.json
    pack
  done
done
cat $R/times.txt $R/ab-nb.txt
grep -h "call \|column_sum" $R/kb-nb.txt
for f in $R/mm*.txt; do echo "== $(basename $f)"; grep "bf16\|f32" $f; done
