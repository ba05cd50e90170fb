#!/usr/bin/env bash
# Prepared in the twenty-sixth session for the next one (not run: the session's device time
# was spent). Question: the stash backwards at rows of 8192 and 16384 (bf16 0.85-0.86 of
# copy at 4096x16384, fp32 0.89-0.90) are issue-bound with one 512-thread block an SM
# (the twenty-fourth session's profile), and every thread issues two 16-byte cp.async
# copies a pack a row. Does filling the ring with the Tensor Memory Accelerator instead
# (thread 0 asks for a row's x and dy whole, cp.async.bulk, mbarriers full/empty a slot:
# bench/experiments/norm-stash-bulk-ring.patch) free the issue slots and the LSU?
# Build first, on the build VM (about 80 s):
#   git apply bench/experiments/norm-stash-bulk-ring.patch
#   mkdir -p build-var && nvcc -std=c++17 -O3 -arch=sm_90 -DOPK_EXP_BULK -Xptxas -v \
#       -o build-var/norm_backward_stash_bulk bench/experiments/norm_backward_stash.cu 2> build-var/ptxas-bulk.txt
#   git checkout vendors/gpu
# The harness times each variant with the column sums, as the library launches them, and
# prints its largest relative difference from the library's reference plan ("today"); the
# cp.async ring of the same launch runs again in the same binary for a same-run
# comparison. Carry build-var. About 90 s.
. bench/device_call.sh r1
t bulk timeout 300 build-var/norm_backward_stash_bulk
pack
cat $R/times.txt
cat $R/bulk.txt
