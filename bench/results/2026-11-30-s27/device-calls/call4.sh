#!/usr/bin/env bash
# Twenty-seventh session, call 4: call 1's bulk-ring harness five times more, to tell its
# fp32 rows of 8192 (bulk 1.0-1.5 % ahead of the cp.async ring in call 1; the library's
# fp32 norm backwards are 0.89-0.897 of copy at 8192x8192) from the run-to-run spread.
# Carry build-var. About 30 s.
. bench/device_call.sh r4
for i in 1 2 3 4 5; do t bulk-$i timeout 60 build-var/norm_backward_stash_bulk; done
pack
cat $R/times.txt
grep -h -E '16384x8192 +stash' $R/bulk-*.txt | cut -c1-90 | sort
