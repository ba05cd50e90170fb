# Two variants, test cases then three A/B rounds each (base: build-check at 9c9a4ef):
#   vsh  = bench/experiments/softmax-fwd-held.patch OPK_EXP_SOFTMAX_HELD=1
#   vrbt = bench/experiments/rms-bwd-twice.patch OPK_EXP_RMS_BWD_TWICE=1
# Builds: OPKIT_PREPARE_ROCM=0 bench/prepare_device_builds.sh variant sh|rbt ...; pack.
# Carry build-check, build-var, .whl.
. bench/device_call.sh r2
dc_variants
dc_cuda_tests sh-tests "*softmax*" sh
dc_cuda_tests sh-rows "*more rows than their grid*" sh
dc_cuda_tests rbt-tests "*norm backwards*" rbt
dc_cuda_tests rbt-rms "*rms_norm*" rbt
pack
dc_ab_rounds sh sh softmax_forward bf16,f16 3
dc_ab_rounds rbt rbt rms_norm_backward bf16,f16 3
cat $R/times.txt $R/ab-*.txt; tail -n 3 $R/sh-*.txt $R/rbt-*.txt
