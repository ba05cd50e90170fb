#!/usr/bin/env bash
# Call 2: why the wide 2-byte norm backwards (call 1, vwide: 1.09-1.43x slower) trail
# softmax's wide backward, which holds its rows the same way (256 threads of eight packs,
# two blocks an SM) and reaches 0.976 of copy at 4096x16384. Nsight Compute's full set on
# the backwards at 4096x16384 and 8192x8192 (bf16): build-check's stash kernels and
# softmax's wide backward, then vwide's wide kernels (OPK_EXP_NORM_WIDE=1), then the SASS
# with its stall samples of vwide's rms_norm kernel at rows of 16384. About 150 s.
. bench/device_call.sh r2
dc_variants
vp=$PWD/var/vwide/libopkit_vendor_cuda.so
K='regex:opk_(rms_bwd|ln_bwd|softmax_bwd)'
ncu_run() {  # NAME VENDOR_PATH [ENV...]
    local name=$1 v=$2
    shift 2
    t "ncu-$name" timeout 200 env "$@" PYTHONPATH="$PWD/python" OPKIT_LIBRARY="$DC_LIB" OPKIT_VENDOR_PATH="$v" \
        ncu --clock-control none --set full --import-source yes -k "$K" --export "/tmp/ncu-$name" \
        python3 bench/ncu_ops.py --ops norms,softmax --row-shapes 4096x16384,8192x8192
    t "ncu-$name-details" ncu --import "/tmp/ncu-$name.ncu-rep" --page details --print-details all
    pack
}
ncu_run base ""
ncu_run wide "$vp" OPK_EXP_NORM_WIDE=1
t ncu-wide-sass ncu --import /tmp/ncu-wide.ncu-rep -k regex:opk_rms_bwd_wide8x --page source --csv --print-source sass
t ncu-base-sass ncu --import /tmp/ncu-base.ncu-rep -k regex:opk_softmax_bwd_wide --launch-count 1 --page source --csv --print-source sass
pack
cat $R/times.txt
grep -E "^  opk_|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit" $R/ncu-*-details.txt | head -120
