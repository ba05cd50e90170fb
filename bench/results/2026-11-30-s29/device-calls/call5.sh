#!/usr/bin/env bash
# Twenty-ninth session, call 5: the whole GPU check (scripts/gpu-check-split.sh) on
# build-check = aeee5ba (rope_qk through every layer: core and its composite default, the
# cuda and rocm vendors' one launch, conformance, Python and opkit.torch on PyTorch 2.11;
# the column sums in quads). Carry build-check. About 450 s.
. bench/device_call.sh r5
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt
tail -40 $R/check-split.txt
