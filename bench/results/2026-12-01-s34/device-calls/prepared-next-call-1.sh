#!/usr/bin/env bash
# Prepared in the thirty-fourth session for the next one (its device time was spent): the
# CPU defaults at 16 threads with rounds of at least 50 ms a library
# (bench/cpu_compare.py --min-round-ms, new in that session), to settle the bf16 embedding
# forward at 16 threads, which read 1.23 (five rounds) and 1.42 (eleven rounds) with
# rounds of about a millisecond whose ratios ranged 0.01-2.69. First the embedding alone
# in eleven rounds, then every op at 16 threads in five. Build: bench/prepare_device_builds.sh
# check (libopkit's CPU defaults are all it runs). Carry build-check (its rocm vendor can
# stay out: the 64 MiB limit). About 250 s.
. bench/device_call.sh r1
dc_cpu_compare cc16-embedding-long --ops embedding --threads 16 --rounds 11 --reps 11 --min-round-ms 50
for g in rms_norm,layer_norm,softmax swiglu,geglu,rope cross_entropy,embedding; do
  [ $SECONDS -gt 400 ] && break
  dc_cpu_compare cc16-long-${g%%,*} --ops $g --threads 16 --rounds 5 --reps 11 --min-round-ms 50
done
cat $R/times.txt $R/cc16-*.txt
