#!/usr/bin/env bash
# Session 2026-11-29 (eighteenth), device call 2, at the tree with layer_norm's shared
# dbias sums (build-check) and three variant vendors of bench/experiments/fixed-occupancy.patch:
# (a) the stash test case on the tree, and its bf16 norms against eager, torch.compile and
#     Liger-Kernel (one run);
# (b) Nsight Compute of the bf16 rms_norm forward at 32768x4096 again, at the GPU's own
#     clocks (--clock-control none; call 1 let ncu lock the base clock);
# (c) the 2-byte fixed-group forwards at other occupancies, alternating twice: the tree;
#     vcap (OPK_FIXED_THREADS caps the resident threads an SM through dynamic shared
#     memory) at 640 / 768 / 896 / 1024; vr48 and vr40 (__maxnreg__ 48 / 40 on the 2-byte
#     fixed kernels) uncapped and capped.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r2.tgz --exclude=triton --exclude=inductor -C $R .; }
mkdir -p var && tar xJf build-var/var.tar.xz -C var
lib=$PWD/build-check/lib/libopkit.so.1
t stash-test timeout 150 build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
t compare-norms-bf16 timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$lib python3 bench/gpu_compare.py --ops norm --dtypes bf16 --out $R/compare-norms-bf16.json
N="ncu --clock-control none -k regex:opk_rms_fwd|_rms_norm_forward --section SpeedOfLight --section Occupancy --section LaunchStats --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum"
t ncu-clocks timeout 150 env PYTHONPATH=/tmp/site TRITON_CACHE_DIR=$R/triton OPKIT_LIBRARY=$lib $N --cache-control none python3 bench/results/2026-11-29-s18/device-calls/ncu_rms_fwd.py
pack
run() {  # run NAME VARIANT THREADS
  local vp=; [ $2 != base ] && vp=$PWD/var/v$2/libopkit_vendor_cuda.so
  local cap=; [ $3 != 0 ] && cap=$3
  t $1 timeout 90 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp OPK_FIXED_THREADS=$cap python3 bench/gpu_compare.py --impls opkit --ops norm_forward,softmax_forward --dtypes bf16 --out $R/$1.json
}
for i in 1 2; do
  run fwd-base-$i base 0
  for c in 640 768 896 1024; do run fwd-cap$c-$i cap $c; done
  run fwd-r48-$i r48 0; run fwd-r48c1024-$i r48 1024
  run fwd-r40-$i r40 0; run fwd-r40c1280-$i r40 1280; run fwd-r40c1024-$i r40 1024
  pack
done
for v in cap640 cap768 cap896 cap1024 r48 r48c1024 r40 r40c1280 r40c1024; do
  python3 bench/ab_table.py $R fwd-base fwd-$v > $R/ab-$v.txt 2>&1
done
pack
cat $R/times.txt
