#!/usr/bin/env bash
# Session 2026-11-29 (eighteenth), device call 4, on the tree to be committed (layer_norm's
# 2-byte fixed-group forwards read weight and bias through the read-only path):
# (a) the whole GPU check, its six parts side by side (scripts/gpu-check-split.sh build-check);
# (b) the norm forwards A/B against b7101b5's vendor (vO), alternating twice;
# (c) the bf16 norms against eager, torch.compile and Liger-Kernel (one run).
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r4.tgz --exclude=triton --exclude=inductor -C $R .; }
mkdir -p var && tar xJf build-var/var.tar.xz -C var
lib=$PWD/build-check/lib/libopkit.so.1
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
ab() {  # ab NAME VARIANT
  local vp=; [ $2 != base ] && vp=$PWD/var/v$2/libopkit_vendor_cuda.so
  t $1 timeout 60 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --impls opkit --ops norm_forward --dtypes bf16,f16 --out $R/$1.json
}
if [ $SECONDS -lt 450 ]; then
  for i in 1 2; do ab fwd-O-$i O; ab fwd-new-$i base; done
  python3 bench/ab_table.py $R fwd-O fwd-new > $R/ab-fwd.txt 2>&1
else echo "A/B skipped: $SECONDS s used" | tee -a $R/times.txt; fi
pack
if [ $SECONDS -lt 500 ]; then
  t compare-norms-bf16 timeout $((585 - SECONDS)) env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$lib python3 bench/gpu_compare.py --ops norm --dtypes bf16 --out $R/compare-norms-bf16.json
else echo "compare-norms-bf16 skipped: $SECONDS s used" | tee -a $R/times.txt; fi
pack
cat $R/times.txt
