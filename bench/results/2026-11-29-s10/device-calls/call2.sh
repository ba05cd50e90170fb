#!/usr/bin/env bash
# Session 2026-11-29 (tenth), device call 2 (main at 7f39788: layer_norm's 2-byte exact
# backward at fixed blocks): (a) Nsight Compute of rope and embedding, opkit's kernels and
# torch.compile's (call 1 ran it without OPKIT_LIBRARY); (b) every op against eager,
# torch.compile and Liger-Kernel in one run, bf16; (c) the CPU embedding forward at 16
# threads against PyTorch (the eighth session's 1.09-1.5x), twice.
set -u
R=$(mktemp -d); mkdir -p $R/inductor $R/triton
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/python OPKIT_LOG_LEVEL=error TORCHINDUCTOR_CACHE_DIR=$R/inductor TRITON_CACHE_DIR=$R/triton
export OPKIT_LIBRARY=$PWD/build-gpu/lib/libopkit.so.1
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r2.tgz --exclude=inductor --exclude=triton --exclude='*.ncu-rep' -C $R .; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt 2>&1
t ncu-re timeout 240 ncu --profile-from-start off --clock-control none -k 'regex:opk_|triton' --set full -o $R/re python3 bench/ncu_ops.py --ops rope,embedding --compile
t ncu-re-details ncu -i $R/re.ncu-rep --page details
ncu -i $R/re.ncu-rep --page source --print-source sass --csv > /tmp/sass.csv 2>&1
t ncu-re-mix python3 bench/ncu_sass_mix.py /tmp/sass.csv 30
find $R/inductor -name "*.py" | xargs grep -l "def triton" 2>/dev/null | head -8 | while read f; do cp "$f" $R/inductor-$(basename "$f"); done
pack
t compare-bf16 timeout 200 python3 bench/gpu_compare.py --dtypes bf16 --out $R/compare-bf16.json
pack
for i in 1 2; do t cpu-emb-$i timeout 60 python3 bench/cpu_compare.py --ops embedding --threads 16 --out $R/cpu-emb-$i.json; done
pack
