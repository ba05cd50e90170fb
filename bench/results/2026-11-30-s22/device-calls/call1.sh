#!/usr/bin/env bash
# Prepared in the twenty-first session for the next one: issue 14 item 4 on the 16-core
# host, not re-measured since the seventh session (whose 16-thread rows were single
# readings beside PyTorch's bimodal times): CPU matmul through the blas vendor against
# PyTorch, with bench/cpu_matmul_compare.py's new --rounds (alternating, the median of the
# rounds' ratios), OpenBLAS's default core type (there: Prescott, so f32 goes through
# oneDNN's sgemm) and SkylakeX, 16 threads and one. Each step packed at once; no new step
# past 430 s.
# Carry build-check (bbf5f8e's build, plus build-check/vendors-blas/libopkit_vendor_blas.so
# from build-gpu/vendors/blas) and build-var/cpulibs.tar.xz (Debian 12's libdnnl.so.2
# 2.6.3, libopenblas.so.0 0.3.21 pthread, and libgfortran.so.5, libquadmath.so.0,
# libOpenCL.so.1, libgomp.so.1 that they link; about 12 MB). About 400 s.
. bench/device_call.sh r1
mkdir -p /tmp/cpulibs && tar xJf build-var/cpulibs.tar.xz -C /tmp/cpulibs
M="env LD_LIBRARY_PATH=/tmp/cpulibs PYTHONPATH=$PWD/python OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_VENDOR_PATH=$PWD/build-check/vendors-blas OPKIT_BLAS_LIBRARY=libopenblas.so.0 OPKIT_LIBRARY=$DC_LIB"
t torch-cpu $M python3 -c "import torch, numpy; print(torch.__version__, torch.backends.cpu.get_cpu_capability(), numpy.__version__)"
for core in default SkylakeX; do
  ct=; [ $core != default ] && ct="OPENBLAS_CORETYPE=$core"
  for th in 16 1; do
    [ $SECONDS -gt 430 ] && break 2
    t mm$th-1024-$core timeout 100 $M $ct python3 bench/cpu_matmul_compare.py --skip-default --shapes 1024^3 --threads $th --reps 5 --rounds 5 --out $R/mm$th-1024-$core.json
    pack
    [ $SECONDS -gt 430 ] && break 2
    t mm$th-4096-$core timeout 120 $M $ct python3 bench/cpu_matmul_compare.py --skip-default --shapes 4096^3 --threads $th --reps 3 --rounds 3 --out $R/mm$th-4096-$core.json
    pack
  done
done
cat $R/times.txt
grep -h "blas/torch" $R/mm*.txt
