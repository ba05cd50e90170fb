#!/usr/bin/env bash
# Thirty-fifth session, call 4: rope through one thread a pack with the partner half from
# a warp shuffle (bench/experiments/rope-shuffle-partner.patch, OPK_EXP_ROPE_SHUFFLE=1:
# variant rsh, 26 registers f32 / 31 bf16, against 120 / 127), after call 3's profile.
# Rope's test cases and cuda conformance through it, three A/B rounds against HEAD's
# vendor, then the rope cases against the peers in five alternating rounds, HEAD's vendor
# and the variant's. Build (cuda vendor only, seconds):
#   OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant rsh bench/experiments/rope-shuffle-partner.patch OPK_EXP_ROPE_SHUFFLE=1
#   bench/prepare_device_builds.sh pack
# Carry build-check (less its rocm vendor), build-var, .whl. About 300 s.
. bench/device_call.sh r4
dc_liger
dc_variants
VP=$PWD/var/vrsh/libopkit_vendor_cuda.so
dc_cuda_tests rsh-tests "ops: rope*" rsh
t rsh-conformance timeout 100 env OPKIT_VENDOR_PATH=$VP build-check/bin/opkit-conformance --vendor cuda
pack
dc_ab_rounds rsh rsh rope_forward,rope_backward bf16,f32 3
for v in base rsh; do
  [ $SECONDS -gt 420 ] && break
  vp=; [ $v = rsh ] && vp=$VP
  t rounds-rope-$v timeout 120 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB OPKIT_VENDOR_PATH=$vp python3 bench/gpu_compare.py --ops rope --rounds 5 --out $R/rounds-rope-$v.json
  pack
done
cat $R/times.txt $R/ab-rsh.txt; tail -n 3 $R/rsh-tests.txt $R/rsh-conformance.txt
for v in base rsh; do [ -f $R/rounds-rope-$v.json ] && python3 bench/perf_table.py --summary $R/rounds-rope-$v.json | grep rope; done
