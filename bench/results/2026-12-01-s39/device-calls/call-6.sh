# The fp32 rms_norm forward at rows of 8192 and 16384 read twice in a loop as torch.compile's
# static kernel reads them (bench/experiments/rms-fwd-looped-f32.patch, OPK_EXP_RMS_LOOPED =
# G * 10 + U): vlp5121 (512 threads, one pack an iteration), vlp5122 (two), vlp2561 (256
# threads, one); two A/B rounds each against build-check (9c9a4ef), then Inductor's chosen
# configs for those two shapes (its cache's best_config files), then vlp5121's rms_norm cases.
# Builds: OPKIT_PREPARE_ROCM=0 OPKIT_PREPARE_RESTORE_BUILD=0 bench/prepare_device_builds.sh
#   variant lp<V> bench/experiments/rms-fwd-looped-f32.patch OPK_EXP_RMS_LOOPED=<V>; pack.
# Carry build-check, build-var.
. bench/device_call.sh r6
dc_variants
for v in 5121 5122 2561; do dc_ab_rounds lp$v lp$v rms_norm_forward f32 2; pack; done
t inductor-rms env TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor python3 bench/inductor_dump.py rms_fwd_f32_8192x8192 rms_fwd_f32_4096x16384
find $R/inductor -name "*.best_config" | while read f; do echo "== $f"; cat "$f"; echo; done > $R/best-configs.txt
pack
[ $SECONDS -lt 240 ] && dc_cuda_tests lp5121-rms "*rms_norm*" lp5121
pack
cat $R/times.txt $R/ab-*.txt $R/best-configs.txt; tail -n 3 $R/lp5121-rms.txt
