#!/usr/bin/env bash
# Forty-eighth session, call 2: layer_norm's 2-byte rows of 4096, 8192 and 16384 read twice,
# one block a row, the moments in one reduction (bench/experiments/ln-fwd-twice.patch,
# variant "lntwice", both vendors): A/B three rounds against HEAD's vendor (f16, bf16), its
# layer_norm cases on cuda and on rocm over HIP-over-CUDA and both conformance runs,
# racecheck and memcheck of its kernels, then the bf16 layer_norm forward against the peers
# (five rounds, with the copy of each case's bytes) through the variant.
# Builds: check.tar.xz as carried (0eb9fe0's; vendors byte-identical to HEAD's), then
#   bench/prepare_device_builds.sh variant lntwice bench/experiments/ln-fwd-twice.patch
#   bench/prepare_device_builds.sh pack
# Carry build-var, .whl.
. bench/device_call.sh r2
cat build-check/HEAD.txt
dc_variants
cat var/vlntwice/VARIANT.txt
dc_ab_rounds ln lntwice layer_norm bf16,f16 3
cat $R/ab-ln.txt
dc_tests ln "ops: layer_norm*" lntwice
pack
VP=$(dc_cuda_vendor lntwice)
t ln-racecheck timeout 150 env OPKIT_VENDOR_PATH="$VP" compute-sanitizer --tool racecheck --error-exitcode 1 \
    --kernel-name kns=ln_fwd_twice build-check/bin/opkit_cuda_tests "ops: layer_norm*"
t ln-memcheck timeout 150 env OPKIT_VENDOR_PATH="$VP" compute-sanitizer --tool memcheck --error-exitcode 1 \
    --kernel-name kns=ln_fwd_twice build-check/bin/opkit_cuda_tests "ops: layer_norm*"
pack
dc_liger
export TORCH_LOGS=recompiles
OPKIT_VENDOR_PATH="$VP" dc_compare ln-peers-lntwice --ops layer_norm --dtypes bf16 --rounds 5
for f in ln-tests ln-tests-rocm ln-conformance ln-conformance-rocm ln-racecheck ln-memcheck; do
    echo "== $f"; tail -n 4 $R/$f.txt
done
python3 bench/perf_table.py --summary $R/ln-peers-lntwice.json
cat $R/times.txt
pack
