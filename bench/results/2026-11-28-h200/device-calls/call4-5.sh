#!/usr/bin/env bash
# Device calls 4 and 5: the launch-shape sweep (bench/experiments/row_forward_variants.cu, built
# here with -DOPK_COMPARE_SHAPES; call 4 with the exact-only variants, call 5 with their
# 768 and 512 resident-thread lines as well), twice each.
mkdir -p $OUT && build-gpu6/devrun/rfv > $OUT/rfv2.txt 2>&1; build-gpu6/devrun/rfv > $OUT/rfv3.txt 2>&1
