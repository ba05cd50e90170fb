#!/usr/bin/env bash
# Session 2026-11-29 (seventeenth), device call 1, at 82b409e:
# (a) bench/experiments/row_forward_variants.cu (-DOPK_COMPARE_SHAPES -DOPK_FIXED_TWO_PACKS)
#     built on the tree (rfv-base) and with flat-rows.patch's OPK_EXP_FLAT_ROWS=1 (rfv-flat),
#     alternating twice: do spill-free 256 x 2 forwards catch up?
# (b) norm backwards A/B, alternating twice: the tree (build-check), vfold (call1-fold.patch's
#     OPK_EXP_STASH_FOLD: rms_norm's first pass and 2-byte layer_norm's second one an
#     FP instruction an element fewer), vsums (stash-pack-sums.patch);
# (c) norm forwards A/B: the tree and vflat (OPK_EXP_FLAT_ROWS=1 in the whole vendor);
# (d) the bf16 norms against eager, torch.compile and Liger-Kernel (reference, same run);
# (e) the stash test case and conformance on vfold.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r1.tgz --exclude=triton --exclude=inductor -C $R .; }
mkdir -p var && tar xJf build-var/var.tar.xz -C var
lib=$PWD/build-check/lib/libopkit.so.1
for v in fold sums flat; do
  env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$PWD/var/v$v/libopkit_vendor_cuda.so python3 -c "import opkit; [print(v) for v in opkit.vendors()]" > $R/vendors-$v.txt 2>&1
done
for i in 1 2; do for v in base flat; do
  t rfv-$v-$i timeout 120 var/rfv-$v
done; pack; done
ab() {  # ab NAME VARIANT OPS DTYPES
  local vp=; [ $2 != base ] && vp=$PWD/var/v$2/libopkit_vendor_cuda.so
  t $1 timeout 90 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --impls opkit --ops $3 --dtypes $4 --out $R/$1.json
}
for i in 1 2; do for v in base fold sums; do ab bwd-$v-$i $v norm_backward bf16,f16; done; done; pack
for i in 1 2; do for v in base flat; do ab fwd-$v-$i $v norm_forward,softmax_forward bf16,f32; done; done; pack
t compare-norms-bf16 timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$lib python3 bench/gpu_compare.py --ops norm --dtypes bf16 --out $R/compare-norms-bf16.json
pack
t conformance-fold timeout 100 env OPKIT_VENDOR_PATH=$PWD/var/vfold/libopkit_vendor_cuda.so build-check/bin/opkit-conformance --vendor cuda
t stash-test-fold timeout 150 env OPKIT_VENDOR_PATH=$PWD/var/vfold/libopkit_vendor_cuda.so build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
pack
cat $R/times.txt
