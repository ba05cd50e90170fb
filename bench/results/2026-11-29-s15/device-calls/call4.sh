#!/usr/bin/env bash
# Session 2026-11-29 (fifteenth), device call 4: which launch configs torch.compile's
# autotuner picks for its fp32 forwards at 32768x4096 (it leads opkit's by 4-5 % there:
# r3/compare-f32): peer_kernels.py again, then every *.best_config of the Inductor / Triton
# caches, and each kernel's launch metadata (num_warps, registers) from Triton's cache.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
t peer-kernels timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor TORCHINDUCTOR_MAX_AUTOTUNE=0 python3 bench/results/2026-11-29-s15/device-calls/peer_kernels.py
find $R/inductor $R/triton -name '*.best_config' | while read f; do
  py=${f%.best_config}.py
  echo "== $(grep -o 'def triton_[a-z_0-9]*' $py 2>/dev/null | head -1) $(grep -o "size_hints={[^}]*}" $py 2>/dev/null | head -1) $(grep -o "'in_ptr0': '[*a-z0-9]*'" $py 2>/dev/null | head -1)"
  cat "$f"; echo
done > $R/best-configs.txt
find $R/triton -name '*.json' -size -20k | while read f; do python3 - "$f" <<'PY' >> $R/triton-meta.txt
import json, sys
d = json.load(open(sys.argv[1]))
if isinstance(d, dict) and "name" in d:
    print(d.get("name"), "num_warps", d.get("num_warps"), "num_stages", d.get("num_stages"), "shared", d.get("shared"), "n_regs", d.get("n_regs"), "n_spills", d.get("n_spills"))
PY
done
sed -i "s#$R#<tmp>#g; s#$PWD#<repo>#g" $R/*.txt
cat $R/times.txt
tar czf $OUT/r4.tgz --exclude=triton --exclude=inductor -C $R .
