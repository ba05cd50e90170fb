#!/usr/bin/env bash
# Session 2026-11-29 (tenth), device call 1: (a) norm_stream_lean, fp32 rms_norm/layer_norm
# forwards written as Inductor's (bench/experiments/row_forward_variants.cu with
# -DOPK_COMPARE_SHAPES -DOPK_STREAMED_HIGH_OCCUPANCY); (b) the branch wip/ln-bwd-fixed
# (build-gpu) against main (build-old), layer_norm backward alone, alternating twice, and
# its outputs against main's and a float64 reference; the cuda vendor's tests on it;
# (c) Nsight Compute of rope and embedding, opkit's kernels and torch.compile's.
set -u
R=$(mktemp -d); mkdir -p $R/inductor
export PYTHONPATH=$PWD/python OPKIT_LOG_LEVEL=error TORCHINDUCTOR_CACHE_DIR=$R/inductor
D=bench/results/2026-11-29-s10/device-calls
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r1.tgz --exclude=inductor --exclude='*.pt' --exclude='*.ncu-rep' -C $R .; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt 2>&1
t rfv-stream timeout 60 build-gpu/devrun/rfv_stream
for i in 1 2; do for b in old gpu; do
  t ab-$b-$i timeout 120 env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops layer_norm_backward --dtypes bf16,f16 --out $R/ab-$b-$i.json
done; done
pack
for b in old gpu; do t out-$b timeout 120 env OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 $D/ln_bwd_outputs.py $R/$b.pt; done
t diff timeout 200 python3 $D/ln_bwd_diff.py $R/old.pt $R/gpu.pt
rm -f $R/*.pt
pack
t cuda-tests timeout 200 build-gpu/bin/opkit_cuda_tests
pack
t ncu-re timeout 240 ncu --profile-from-start off --clock-control none -k 'regex:opk_|triton' --set full -o $R/re python3 bench/ncu_ops.py --ops rope,embedding --compile
t ncu-re-details ncu -i $R/re.ncu-rep --page details
ncu -i $R/re.ncu-rep --page source --print-source sass --csv > /tmp/sass.csv 2>&1
t ncu-re-mix python3 bench/ncu_sass_mix.py /tmp/sass.csv 30
find $R/inductor -name "*.py" | xargs grep -l "def triton" 2>/dev/null | head -6 | while read f; do cp "$f" $R/inductor-$(basename "$f"); done
pack
