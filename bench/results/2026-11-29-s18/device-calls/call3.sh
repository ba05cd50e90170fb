#!/usr/bin/env bash
# Session 2026-11-29 (eighteenth), device call 3, at b7101b5 (build-check): the norm
# forwards' weight packs read another way (bench/experiments/weight-first.patch,
# OPK_EXP_WEIGHT_FIRST = 1, 2, 3 as vendors vwf1-3), A/B against the tree alternating
# twice, and conformance of each variant.
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r3.tgz -C $R .; }
mkdir -p var && tar xJf build-var/var.tar.xz -C var
lib=$PWD/build-check/lib/libopkit.so.1
ab() {  # ab NAME VARIANT
  local vp=; [ $2 != base ] && vp=$PWD/var/v$2/libopkit_vendor_cuda.so
  t $1 timeout 90 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --impls opkit --ops norm_forward --dtypes bf16,f16,f32 --out $R/$1.json
}
for i in 1 2; do for v in base wf1 wf2 wf3; do ab fwd-$v-$i $v; done; pack; done
for v in wf1 wf2 wf3; do python3 bench/ab_table.py $R fwd-base fwd-$v > $R/ab-$v.txt 2>&1; done
pack
for v in wf1 wf2 wf3; do
  t conformance-$v timeout 100 env OPKIT_VENDOR_PATH=$PWD/var/v$v/libopkit_vendor_cuda.so build-check/bin/opkit-conformance --vendor cuda
done
pack
cat $R/times.txt
