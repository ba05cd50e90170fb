#!/usr/bin/env bash
# Call 9 of the thirty-eighth session: vlnp = layer_norm's fp32 forward of rows of 8192 with
# weight and bias loaded beside x (opk_ln_fwd_params_f32_g512x4; ln_forward_params in
# norms.cu), built from bc71c27 + the working tree's diff (/tmp/lnp.patch then), both
# vendors. The layer_norm test cases on cuda and on rocm (HIP-over-CUDA) through it, the
# rows-past-the-grid case, then three A/B rounds of the fp32 layer_norm forward.
# Builds: bench/prepare_device_builds.sh variant lnp /tmp/lnp.patch; pack. Base: build-check
# (61fac3f; its layer_norm kernels are bc71c27's).
. bench/device_call.sh r9
dc_variants
dc_tests lnp "*layer_norm*" lnp
dc_cuda_tests lnp-rows "*more rows than their grid*" lnp
pack
dc_ab_rounds lnp lnp layer_norm_forward f32 3
cat $R/times.txt $R/ab-*.txt; tail -n 3 $R/lnp-*.txt
