#!/usr/bin/env bash
# Run as the forty-ninth session's call 1 (prepared in the forty-eighth).
# Prepared in the forty-eighth session, not run (its device time was spent: 180 s were left,
# too little to start a machine). The whole GPU check owed on the landing ef72821
# (rms_norm's 2-byte twice kernels with the row ahead in L2; its norm cases on both vendors,
# both conformance runs and memcheck passed in the forty-eighth session's call 4, but the
# whole check did not fit): build-check of HEAD, parts limited to 540 s.
# Builds: bench/prepare_device_builds.sh check; bench/prepare_device_builds.sh pack.
# Carry build-var. Then prepared-next-call-2.sh (two A/Bs).
. bench/device_call.sh r1
cat build-check/HEAD.txt
dc_check 540
cat $R/times.txt
pack
