#!/usr/bin/env bash
# Session 2026-11-29 (fifteenth), device call 1: (a) the cached forwards (softmax, rms_norm,
# layer_norm; fp32 and bf16) under other cache hints and pack counts, each variant a cuda
# vendor built from HEAD plus one -D of the experiment knobs (OPK_EXP_* in rows.cuh and
# kernel_params.h), loaded through OPKIT_VENDOR_PATH beside HEAD's libopkit (build-old),
# against HEAD's own vendor, alternating twice:
#   vA: the exact rows' loads L2 evict_first (createpolicy), L1 no_allocate
#   vB: the cached kernels' stores st.global.cs (evict-first)
#   vC: both through an L2 evict_first policy
#   vD: fp32 fixed-group forwards at four packs a thread (rows of 4096: 256 threads,
#       of 8192: 512) instead of eight
# (b) the peers' forward kernels compiled once (peer_kernels.py): their Triton sources and
# PTX, to read which hints and shapes they use.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor $R/ptx
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r1.tgz --exclude=triton --exclude=inductor -C $R .; }
mkdir -p var && tar xJf build-var/var.tar.xz -C var
lib=$PWD/build-old/lib/libopkit.so.1
for v in old A B C D; do
  vp=; [ $v != old ] && vp=$PWD/var/v$v/libopkit_vendor_cuda.so
  env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 -c "import opkit; [print(v) for v in opkit.vendors()]" > $R/vendors-$v.txt 2>&1
done
for i in 1 2; do for v in old A B C D; do
  vp=; [ $v != old ] && vp=$PWD/var/v$v/libopkit_vendor_cuda.so
  t ab-$v-$i timeout 90 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --impls opkit --ops norm_forward,softmax_forward --dtypes f32,bf16 --out $R/ab-$v-$i.json
done; pack; done
t peer-kernels timeout 300 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor python3 bench/results/2026-11-29-s15/device-calls/peer_kernels.py
find $R/triton -name '*.ptx' -size -400k -exec cp {} $R/ptx/ \;
find $R/triton -name '*.source' -size -100k -exec cp {} $R/ptx/ \; 2>/dev/null
find $R/inductor -name '*.py' -size -100k | xargs grep -l "triton_per\|triton_red" 2>/dev/null | head -40 | while read f; do cp "$f" $R/ptx/inductor-$(basename "$f"); done
ls -la $R/ptx > $R/ptx-list.txt
cat $R/times.txt
pack
