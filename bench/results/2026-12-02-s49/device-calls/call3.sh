#!/usr/bin/env bash
# The forty-ninth session's call 3: the bf16 rms_norm forward at 8192x8192 against
# torch.compile, the forty-eighth session's new miss (0.994x after ef72821's twice kernels
# with the row ahead in L2; 1.00x on the old kernel in the forty-sixth session's run), which
# no breakdown or profile had looked at: events and CUPTI kernels of the same calls
# (kernel_breakdown --behind-spin), Nsight Compute's full set on one opkit and one Inductor
# call (placement_probe's new rms_fwd_compile_bf16_8k case), and a third run against the
# peers (seven rounds). build-check = 2e686e4 (HEAD's vendors byte-identical). Carry
# build-var and .whl.
. bench/device_call.sh r3
cat build-check/HEAD.txt
dc_liger
export TORCH_LOGS=recompiles
dc_breakdown kb-rms-fwd-bf16 --calls 30 --ops rms_norm_forward --shapes 8192x8192 --dtypes bf16
dc_ncu_gaps ncu-rms-bf16 rms_fwd_compile_bf16_8k
dc_compare rms-bf16 --ops rms_norm --dtypes bf16 --rounds 7
python3 bench/perf_table.py --summary $R/rms-bf16.json
cat $R/times.txt $R/kb-rms-fwd-bf16.txt $R/ncu-rms-bf16-stalls.txt
pack
