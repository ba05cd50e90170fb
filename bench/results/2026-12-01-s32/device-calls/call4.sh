#!/usr/bin/env bash
# torch.compile's generated code for the bf16 softmax backward and the fp32 rope forward
# (bench/inductor_dump.py), to read what its kernels do that opkit's do not.
. bench/device_call.sh r4
t inductor-code timeout 200 env TORCH_LOGS=output_code TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor \
    python3 bench/inductor_dump.py
pack
cat $R/times.txt
# the compiled kernels' launch settings (Triton's cache: metadata json per kernel)
find $R/triton -name '*.json' -newer $R/times.txt -o -name '*.json' | head -40 | while read f; do
  python3 -c "import json,sys; m=json.load(open('$f')); print('$f'.split('/')[-1], {k: m.get(k) for k in ('name','num_warps','num_stages','shared','num_ctas')})" 2>/dev/null
done > $R/triton-meta.txt
mkdir -p $R/ptx && find $R/triton -name '*.ptx' -exec cp {} $R/ptx/ \; ; find $R/triton -name '*.json' -exec cp {} $R/ptx/ \;
pack
cat $R/triton-meta.txt; grep -n "def triton_\|XBLOCK\|R0_BLOCK\|num_warps\|triton_meta\|@triton" $R/inductor-code.txt | head -80
