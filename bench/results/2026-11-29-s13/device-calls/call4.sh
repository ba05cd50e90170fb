#!/usr/bin/env bash
# Session 2026-11-29 (thirteenth), device call 4, on the build with layer_norm's 2-byte
# forwards through a ring (opk_ln_fwd_stash_<f16|bf16>_s<i>; build-check; build-old: the
# library of 12b26c6, whose forwards are those of call 2's build): (a) the GPU quiet: the
# norm forwards through the library, build-old against build-check, alternating twice; the
# norm forwards against eager, torch.compile and Liger-Kernel in one run; (b) then, side by
# side: the layer_norm test cases, the new case with OPKIT_CUDA_CLUSTER_KERNELS=0, the cuda
# conformance run, Nsight Compute's summary of the new case (which kernels ran), and
# compute-sanitizer memcheck and racecheck of the new kernels.
set -u
R=$(mktemp -d); mkdir -p $R/triton $R/inductor
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r4.tgz --exclude=triton --exclude=inductor -C $R .; }
for i in 1 2; do for b in old check; do
  t ab-$b-$i timeout 60 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$PWD/build-$b/lib/libopkit.so.1 python3 bench/gpu_compare.py --impls opkit --ops norm_forward --dtypes bf16,f16 --out $R/ab-$b-$i.json
done; done
pack
t compare-fwd timeout 90 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$PWD/build-check/lib/libopkit.so.1 python3 bench/gpu_compare.py --ops norm_forward --dtypes bf16 --out $R/compare-fwd.json
pack
CASE="ops: layer_norm forward through the stash kernels*"
t ln-tests timeout 150 build-check/bin/opkit_cuda_tests "$CASE,ops: layer_norm forward and backward*" &
t ln-no-clusters timeout 150 env OPKIT_CUDA_CLUSTER_KERNELS=0 build-check/bin/opkit_cuda_tests "$CASE" &
t conformance timeout 150 build-check/bin/opkit-conformance --vendor cuda &
t memcheck timeout 150 compute-sanitizer --tool memcheck --kernel-name kns=ln_fwd_stash build-check/bin/opkit_cuda_tests "$CASE" &
t racecheck timeout 150 compute-sanitizer --tool racecheck --kernel-name kns=ln_fwd_stash build-check/bin/opkit_cuda_tests "$CASE" &
t ncu-lnfwd timeout 150 ncu --print-summary per-kernel --metrics gpu__time_duration.sum --kernel-id ::regex:_stash_:1 build-check/bin/opkit_cuda_tests "$CASE"
wait
cat $R/times.txt
pack
