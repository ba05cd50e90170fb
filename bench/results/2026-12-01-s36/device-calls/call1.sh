#!/usr/bin/env bash
# Thirty-sixth session, call 1: the thirty-fifth session's bench/results/2026-12-01-s35/device-calls/prepared-next-call-2.sh as it
# was prepared (variants rqk, ew2, ew4 in one build-var with rh1, rh2 of call 2; built with
# bench/prepare_device_builds.sh check, then variant rqk, rh1, rh2, ew2, ew4 and pack). Carry
# build-check, build-var, .whl.
. bench/device_call.sh r1
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
