#!/usr/bin/env bash
# Session 2026-11-29 (fifteenth), device call 2, on the working tree of the fp32 x4 fixed
# forwards (build-check: opk_{softmax,rms,ln}_fwd_fixed_f32_g256x4 for rows of 4096,
# opk_rms_fwd_fixed_f32_g512x4 for rms_norm's 8192): (a) the fp32 forwards against HEAD
# (build-old), and against the same tree with the x4 kernels bounded for 1536 (vE: 40
# registers) or 1280 (vF: 48) resident threads instead of 1024, alternating twice; (b) the
# fp32 forwards against the peers in one run; (c) compute-sanitizer memcheck over the
# forward test cases, instrumenting the fp32 fixed kernels; (d) the whole GPU check
# (scripts/gpu-check-split.sh).
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r2.tgz --exclude=triton --exclude=inductor -C $R .; }
mkdir -p var && tar xJf build-var/var.tar.xz -C var
for i in 1 2; do for v in old check E F; do
  lib=$PWD/build-old/lib/libopkit.so.1; vp=
  [ $v = check ] && lib=$PWD/build-check/lib/libopkit.so.1
  [ $v = E -o $v = F ] && lib=$PWD/build-check/lib/libopkit.so.1 && vp=$PWD/var/v$v/libopkit_vendor_cuda.so
  t ab-$v-$i timeout 90 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --impls opkit --ops norm_forward,softmax_forward --dtypes f32 --out $R/ab-$v-$i.json
done; done
pack
t compare-f32 timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm_forward,softmax_forward --dtypes f32 --out $R/compare-f32.json
pack
t memcheck timeout 120 compute-sanitizer --tool memcheck --kernel-name kns=fwd_fixed_f32 build-check/bin/opkit_cuda_tests "ops: rms_norm forward and backward match the CPU,ops: layer_norm forward and backward match the CPU,ops: softmax forward and backward match the CPU"
pack
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=400; t check-split scripts/gpu-check-split.sh build-check )
cat $R/times.txt
pack
