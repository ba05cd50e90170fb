#!/usr/bin/env bash
# Prepared in the fiftieth session, not run: the second call of prepared-next-call-1.sh's
# pair (see there): the embedding forward with 8-byte words. Carry build-var.
. bench/device_call.sh r2
t efa build-var/efa
cat $R/efa.txt
cat $R/times.txt
pack
