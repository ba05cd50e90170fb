. bench/device_call.sh r1
dc_liger
t rounds-norm-fwd timeout 200 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --ops norm_forward --dtypes bf16,f32 --rounds 5 --out $R/rounds-norm-fwd.json
pack
( export OUT=$R/check OPKIT_GPU_CHECK_PART_TIMEOUT=470; t check-split scripts/gpu-check-split.sh build-check )
pack
cat $R/times.txt; grep "== part" $R/check-split.txt
python3 bench/perf_table.py --summary --dtype bf16 $R/rounds-norm-fwd.json | grep norm
python3 bench/perf_table.py --summary --dtype f32 $R/rounds-norm-fwd.json | grep norm
