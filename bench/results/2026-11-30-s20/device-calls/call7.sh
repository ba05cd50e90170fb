#!/usr/bin/env bash
# Call 6 ran past its limit before it packed its A/B runs (its test steps took 130 s
# each, not the 30 s planned): with the device time left (204 s), the norm backwards'
# A/B again, vold against the new vendor, twice alternating, each result packed at once;
# then kernel_breakdown.py on them (bf16). Carry build-check and build-var/var.tar.xz.
. bench/device_call.sh r7
dc_variants
ab() {  # NAME VENDOR_PATH
  t "$1" timeout 60 env PYTHONPATH="$PWD/python" OPKIT_LIBRARY="$DC_LIB" OPKIT_VENDOR_PATH="$2" \
    python3 bench/gpu_compare.py --impls opkit --ops norm_backward --dtypes bf16,f16,f32 --out "$R/$1.json"
  pack
}
for i in 1 2; do
  ab nb-old-$i $PWD/var/vold/libopkit_vendor_cuda.so
  ab nb-new-$i ""
done
python3 bench/ab_table.py $R nb-old nb-new > $R/ab-new.txt 2>&1
pack
t kb-norm-bwd timeout 40 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB python3 bench/kernel_breakdown.py --dtypes bf16 --ops norm_backward
pack
cat $R/times.txt $R/ab-new.txt
grep -h "call " $R/kb-norm-bwd.txt
