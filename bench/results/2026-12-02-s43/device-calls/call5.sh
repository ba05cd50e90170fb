#!/usr/bin/env bash
# The forty-third session, call 5. The landed block-a-row rms_norm forward (build-check)
# against HEAD 16225e4's own cuda vendor (vold, the walking 512 x 2 kernels) in three
# alternating rounds, bf16, f16 (not in call 3's A/B) and fp32; ratio vold / base, so above
# 1 the landed build is faster. Then the rms_norm forward against the peers, five rounds.
# Builds: check; vold = build-gpu's cuda vendor before the change; pack. Carry build-var, .whl.
. bench/device_call.sh r5
dc_variants
dc_ab_rounds old old rms_norm_forward bf16,f16,f32 3
dc_liger
export TORCH_LOGS=recompiles
dc_compare rms-fwd --ops rms_norm_forward --dtypes bf16 --rounds 5
cat $R/times.txt $R/ab-old.txt
python3 bench/perf_table.py --summary $R/rms-fwd.json
pack
