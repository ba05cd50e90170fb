#!/usr/bin/env bash
# Prepared in the thirty-fifth session for the next one (its device time was spent), after
# opk_rope_dense (two 16-byte packs a thread in 128-thread blocks, no loop: f32 rope 0.981
# of the old kernel's time): the same shape for (a) rope on q and k in one launch
# (bench/experiments/rope-qk-dense.patch: variant rqk; the fp32 q+k forward is 0.99x
# torch.compile and Liger) and (b) the dense element-wise kernels
# (bench/experiments/elementwise-dense-packs.patch, 2 and 4 packs a thread: ew2, ew4; the
# fp32 swiglu/geglu backwards trail torch.compile by 0.7-1 % in every round). Builds (cuda
# vendor only; rope's in seconds, elementwise's about a minute each):
#   bench/prepare_device_builds.sh check
#   OPKIT_PREPARE_ROCM=0 OPKIT_PREPARE_RESTORE_BUILD=0 bench/prepare_device_builds.sh variant rqk bench/experiments/rope-qk-dense.patch OPK_EXP_ROPE_QK_DENSE=1
#   OPKIT_PREPARE_ROCM=0 OPKIT_PREPARE_RESTORE_BUILD=0 bench/prepare_device_builds.sh variant ew2 bench/experiments/elementwise-dense-packs.patch OPK_EXP_EW_DENSE_PACKS=2
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant ew4 bench/experiments/elementwise-dense-packs.patch OPK_EXP_EW_DENSE_PACKS=4
#   bench/prepare_device_builds.sh pack
# Test cases on each variant first (rope q+k; swiglu/geglu and axpy), then A/B rounds
# (three for rope, two for the element-wise ops), then against the peers in five rounds.
# Carry build-check (less its rocm vendor: the 64 MiB limit), build-var, .whl. About 450 s.
. bench/device_call.sh r2
dc_liger
dc_variants
dc_cuda_tests rqk-tests "ops: rope*" rqk
for v in ew2 ew4; do dc_cuda_tests $v-tests "ops: swiglu*,ops: axpy*" $v; done
pack
dc_ab_rounds rqk rqk rope_forward,rope_backward bf16,f32 3
dc_ab_rounds ew2 ew2 swiglu,geglu bf16,f32 2
dc_ab_rounds ew4 ew4 swiglu,geglu bf16,f32 2
for v in rqk ew2; do
  [ $SECONDS -gt 480 ] && break
  ops=rope; [ $v = ew2 ] && ops=swiglu,geglu
  t rounds-$v timeout 100 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$PWD/var/v$v/libopkit_vendor_cuda.so python3 bench/gpu_compare.py --ops $ops --rounds 5 --out $R/rounds-$v.json
  pack
done
cat $R/times.txt $R/ab-*.txt; tail -n 2 $R/*-tests.txt
