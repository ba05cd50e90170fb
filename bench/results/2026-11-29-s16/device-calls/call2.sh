#!/usr/bin/env bash
# Session 2026-11-29 (sixteenth), device call 2: (a) the norm backwards, alternating twice:
# vO (HEAD 2aa547d's vendor), the new tree (layer_norm's 2-byte stash backward with x-hat as
# one FMA and, at two packs a thread, its weight unpacked once; build-check), vD (the new
# tree plus the 2-byte four-pack stash kernels reading the weight as fp32 from shared memory
# after the ring, OPK_EXP_STASH_SHARED_WEIGHT); (b) Nsight Compute (full set, SASS with its
# execution counts kept) of the new tree's and vD's layer_norm stash kernel at 4096x16384;
# (c) the stash test case on the new tree and on vD.
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r2.tgz --exclude='*.ncu-rep' --exclude='*.csv' -C $R .; }
mkdir -p var && tar xJf build-var/var.tar.xz -C var
lib=$PWD/build-check/lib/libopkit.so.1
for v in O D; do
  env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$PWD/var/v$v/libopkit_vendor_cuda.so python3 -c "import opkit; [print(v) for v in opkit.vendors()]" > $R/vendors-$v.txt 2>&1
done
for i in 1 2; do for v in O new D; do
  vp=; [ $v != new ] && vp=$PWD/var/v$v/libopkit_vendor_cuda.so
  t ab-$v-$i timeout 90 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --impls opkit --ops norm_backward --dtypes bf16,f16 --out $R/ab-$v-$i.json
done; pack; done
prof() {  # prof NAME KERNEL-REGEX OP SHAPE VENDOR-PATH
  t ncu-$1 timeout 120 env OPKIT_VENDOR_PATH=$5 ncu --set full --import-source no -k regex:$2 --launch-count 1 -o $R/$1 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib python3 bench/gpu_compare.py --impls opkit --ops $3 --shapes $4 --dtypes bf16 --reps 1
  ncu --import $R/$1.ncu-rep --page details > $R/ncu-$1-details.txt 2>&1
  ncu --import $R/$1.ncu-rep --page source --print-source sass --csv > $R/$1-sass.csv 2>/dev/null
  python3 bench/ncu_sass_mix.py $R/$1-sass.csv 40 > $R/ncu-$1-mix.txt 2>&1
  gzip -c $R/$1-sass.csv > $R/$1-sass.csv.gz
}
prof ln16384-new ln_bwd_stash_bf16_s2_exact layer_norm_backward 4096x16384 ""
prof ln16384-D ln_bwd_stash_bf16_s2_exact layer_norm_backward 4096x16384 $PWD/var/vD/libopkit_vendor_cuda.so
pack
STASH="ops: norm backwards through the stash kernels*"
t stash-test-new timeout 150 build-check/bin/opkit_cuda_tests "$STASH"
t stash-test-D timeout 150 env OPKIT_VENDOR_PATH=$PWD/var/vD/libopkit_vendor_cuda.so build-check/bin/opkit_cuda_tests "$STASH"
pack
cat $R/times.txt
