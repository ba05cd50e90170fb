#!/usr/bin/env bash
# Session 2026-11-29 (sixteenth), device call 1: the bf16 norm backwards of rows of 8192 and
# 16384 (0.73-0.899 of copy): (a) Nsight Compute (full set, SASS with stall samples) of one
# launch of the stash kernels the library runs there (layer_norm 4096x16384 s2, 8192x8192
# s1, rms_norm 4096x16384 s2, 8192x8192 s1); (b) variant vendors of HEAD's stash backward
# (OPK_EXP_* knobs in vendors/gpu/norms.cu), each run through the stash test case and timed
# against HEAD's own vendor, alternating twice:
#   vA: the weight's packs unpacked once per kernel where a thread has at most two (the
#       per-row asm barrier off)
#   vB: layer_norm's x-hat of the first pass as one FMA (x * rstd - mean * rstd), 2-byte
#   vC: both
set -u
R=$(mktemp -d)
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r1.tgz --exclude='*.ncu-rep' --exclude='*.csv' -C $R .; }
mkdir -p var && tar xJf build-var/var.tar.xz -C var
lib=$PWD/build-check/lib/libopkit.so.1
prof() {  # prof NAME KERNEL-REGEX OP SHAPE
  t ncu-$1 timeout 120 ncu --set full --import-source no -k regex:$2 --launch-count 1 -o $R/$1 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib python3 bench/gpu_compare.py --impls opkit --ops $3 --shapes $4 --dtypes bf16 --reps 1
  ncu --import $R/$1.ncu-rep --page details > $R/ncu-$1-details.txt 2>&1
  ncu --import $R/$1.ncu-rep --page raw --csv 2>/dev/null | python3 -c "
import csv,sys
rows=list(csv.reader(sys.stdin))
if len(rows)>2:
    for k,u,v in zip(rows[0],rows[1],rows[2]):
        if 'stall' in k or 'inst_executed' in k or 'warps_active' in k: print(k,u,v)" > $R/ncu-$1-stalls.txt
  ncu --import $R/$1.ncu-rep --page source --print-source sass --csv > $R/$1-sass.csv 2>/dev/null
  python3 bench/ncu_sass_mix.py $R/$1-sass.csv 40 > $R/ncu-$1-mix.txt 2>&1
}
prof ln16384 ln_bwd_stash_bf16_s2_exact layer_norm_backward 4096x16384
prof ln8192 ln_bwd_stash_bf16_s1_exact layer_norm_backward 8192x8192
prof rms16384 rms_bwd_stash_bf16_s2_exact rms_norm_backward 4096x16384
prof rms8192 rms_bwd_stash_bf16_s1_exact rms_norm_backward 8192x8192
pack
STASH="ops: norm backwards through the stash kernels*"
for v in A B C; do
  vp=$PWD/var/v$v/libopkit_vendor_cuda.so
  env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 -c "import opkit; [print(v) for v in opkit.vendors()]" > $R/vendors-$v.txt 2>&1
  t stash-test-$v timeout 60 env OPKIT_VENDOR_PATH=$vp build-check/bin/opkit_cuda_tests "$STASH"
done
pack
for i in 1 2; do for v in old A B C; do
  vp=; [ $v != old ] && vp=$PWD/var/v$v/libopkit_vendor_cuda.so
  t ab-$v-$i timeout 90 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --impls opkit --ops norm_backward --dtypes bf16,f16 --out $R/ab-$v-$i.json
done; pack; done
cat $R/times.txt
