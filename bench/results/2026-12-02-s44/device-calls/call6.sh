#!/usr/bin/env bash
# The forty-fourth session, call 6: the whole GPU check on the landing build (call 5's
# build-check), 540 s parts. Carry build-var.
. bench/device_call.sh r6
cat build-check/HEAD.txt
dc_check 540
cat $R/times.txt
pack
