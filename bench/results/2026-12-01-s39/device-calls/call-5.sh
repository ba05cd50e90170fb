# torch.compile's generated code for the gaps that the static compiles of call 4 showed
# (bench/inductor_dump.py: the fp32 rms_norm forward at 8192x8192 and 4096x16384, the bf16
# swiglu / geglu forwards at 8192x8192, the bf16 swiglu backward at 4096x16384), with the
# kernels' PTX where Inductor's cache keeps it. No opkit build needed.
. bench/device_call.sh r5
t inductor-code env TORCH_LOGS=output_code TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor python3 bench/inductor_dump.py rms_fwd_f32_8192x8192 rms_fwd_f32_4096x16384 swiglu_fwd_bf16_8192x8192 geglu_fwd_bf16_8192x8192 swiglu_bwd_bf16_4096x16384
mkdir -p $R/ptx; find $R/triton -name "*.ptx" -exec cp {} $R/ptx/ \; ; find $R/triton -name "*.json" -path "*triton*" -exec grep -l '"num_warps"' {} \; | head -20 | xargs -r -I{} sh -c 'echo "== {}"; cat {}; echo' > $R/triton-meta.txt
pack
cat $R/times.txt; grep -c "def triton" $R/inductor-code.txt; ls $R/ptx | head
