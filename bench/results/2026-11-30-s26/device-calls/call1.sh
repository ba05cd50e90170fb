#!/usr/bin/env bash
# Prepared in the twenty-fifth session for the next one (not run). build-check = 127287c's
# build (HEAD's vendors). Question: Nsight Compute counts about half the global sectors of
# the fp32 split norm backwards (opk_{rms,ln}_bwd_stash_f32_k2_exact, 4096x16384) as excess
# (r2/ncu-f32k2.txt: "uncoalesced global accesses", L2 hit rate 63-65 % on data read once),
# though their loads are LDGSTS.128 of contiguous, aligned 16-byte packs; the bf16 s2
# kernel shows 22.9 of 32 bytes a sector used. Which instructions own the excess sectors?
# A full-set report of those kernels, then its SASS-level source page (per-instruction
# sectors and stall samples) as CSV.
# Carry build-check. About 200 s.
. bench/device_call.sh r1
t ncu-full timeout 300 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB ncu --clock-control none --set full \
    --import-source no -k 'regex:_bwd_stash_f32_k2_exact' -o $R/stash python3 bench/ncu_ops.py --ops norms --dtype f32
pack
t ncu-source timeout 120 ncu -i $R/stash.ncu-rep --page source --print-source sass --csv
t ncu-details timeout 60 ncu -i $R/stash.ncu-rep --page details --print-details all
rm -f $R/stash.ncu-rep
pack
cat $R/times.txt
grep -E 'opk_|excessive|Sectors' $R/ncu-details.txt | head -40
