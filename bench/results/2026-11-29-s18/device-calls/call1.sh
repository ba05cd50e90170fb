#!/usr/bin/env bash
# Session 2026-11-29 (eighteenth), device call 1, at c83eca8:
# (a) the stash test case and conformance on vdbias (bench/experiments/stash-shared-dbias.patch,
#     OPK_EXP_STASH_SHARED_DBIAS=1 for nvcc and the host);
# (b) norm backwards A/B, alternating twice: the tree (build-check) and vdbias;
# (c) Nsight Compute of the bf16 rms_norm forward at 32768x4096, opkit's and Liger's, with
#     ncu's cache flush and without it (the third of three back-to-back calls);
# (d) the 16-core host: cpu_compare --rounds 5 of the embedding forward and softmax at 16 threads.
set -u
R=$(mktemp -d); mkdir -p $R/triton
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export OPKIT_LOG_LEVEL=error
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
pack() { tar czf $OUT/r1.tgz --exclude=triton -C $R .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
mkdir -p var && tar xJf build-var/var.tar.xz -C var
lib=$PWD/build-check/lib/libopkit.so.1
V=$PWD/var/vdbias/libopkit_vendor_cuda.so
t stash-test-dbias timeout 150 env OPKIT_VENDOR_PATH=$V build-check/bin/opkit_cuda_tests "ops: norm backwards through the stash kernels*"
t conformance-dbias timeout 100 env OPKIT_VENDOR_PATH=$V build-check/bin/opkit-conformance --vendor cuda
pack
ab() {  # ab NAME VARIANT OPS DTYPES
  local vp=; [ $2 != base ] && vp=$PWD/var/v$2/libopkit_vendor_cuda.so
  t $1 timeout 90 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$lib OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --impls opkit --ops $3 --dtypes $4 --out $R/$1.json
}
for i in 1 2; do for v in base dbias; do ab bwd-$v-$i $v norm_backward bf16,f16; done; done
python3 bench/ab_table.py $R bwd-base bwd-dbias > $R/ab-bwd.txt 2>&1; pack
N="ncu --profile-from-start on -k regex:opk_rms_fwd|_rms_norm_forward --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum"
S=bench/results/2026-11-29-s18/device-calls/ncu_rms_fwd.py
t ncu-flush timeout 150 env PYTHONPATH=/tmp/site TRITON_CACHE_DIR=$R/triton OPKIT_LIBRARY=$lib $N --cache-control all python3 $S
t ncu-noflush timeout 150 env PYTHONPATH=/tmp/site TRITON_CACHE_DIR=$R/triton OPKIT_LIBRARY=$lib $N --cache-control none python3 $S
pack
for n in 1 2; do
  t cpu16-$n timeout 150 env OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY=$lib PYTHONPATH=$PWD/python python3 bench/cpu_compare.py --ops embedding_forward,softmax --threads 16 --rounds 5 --out $R/cpu16-$n.json
done
pack
cat $R/times.txt
