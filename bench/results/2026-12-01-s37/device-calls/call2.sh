#!/usr/bin/env bash
# The softmax backward in Inductor's shape, written lean (bench/experiments/
# softmax_backward_lean.cu: compile-time rows, no bounds): a row held in registers or read
# twice, 1024-2048 resident threads, against the library's kernel launched as the library
# launches it, whole-output maxdiff a line; the harness twice (its spread). Then the softmax
# rows against the peers, three rounds, for where the library's kernel stands in the same
# call. Carry build-check, .whl (build-var unused). About 200 s.
. bench/device_call.sh r2
dc_liger
t nvcc-lean nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o /tmp/sbl bench/experiments/softmax_backward_lean.cu
t lean-1 timeout 150 /tmp/sbl
pack
t lean-2 timeout 150 /tmp/sbl
pack
dc_compare rounds-softmax --ops softmax --dtypes bf16,f32 --rounds 3
cat $R/times.txt
grep -h softmax_bwd $R/lean-1.txt
python3 bench/perf_table.py --summary $R/rounds-softmax.json | grep softmax
