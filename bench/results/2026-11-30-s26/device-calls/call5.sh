#!/usr/bin/env bash
# Twenty-sixth session, call 5, on build-check = 0c30f67 (its vendors; later commits are
# results and scripts). 1. A survey for call 1's finding elsewhere: every opk_ kernel of
# bench/ncu_ops.py's cases (norms, softmax, cross-entropy, rope, embedding; bf16 and fp32)
# with the bytes the crossbar carried to the SMs against the bytes read from DRAM (a kernel
# that reads its data once should have the two equal). 2. Cross-entropy against the peers
# for the standing table (its cluster kernels changed in 0c30f67).
# Carry build-check, .whl. About 250 s.
. bench/device_call.sh r5
dc_liger
M=l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
for dt in bf16 f32; do
  t ncu-survey-$dt timeout 150 env PYTHONPATH=$PWD/python OPKIT_LIBRARY=$DC_LIB ncu --clock-control none --metrics $M \
      -k 'regex:opk_' python3 bench/ncu_ops.py --ops norms,softmax,ce,rope,embedding --dtype $dt
  pack
done
for dt in bf16 f32; do
  t compare-ce-$dt timeout 100 env PYTHONPATH=/tmp/site:$PWD/python TRITON_CACHE_DIR=$R/triton TORCHINDUCTOR_CACHE_DIR=$R/inductor OPKIT_LIBRARY=$DC_LIB python3 bench/gpu_compare.py --dtypes $dt --ops cross_entropy --out $R/compare-ce-$dt.json
  pack
done
cat $R/times.txt
for dt in bf16 f32; do
python3 - $R/ncu-survey-$dt.txt <<'PY'
import re, sys
cur = None; rows = []
units = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}
for line in open(sys.argv[1]):
    m = re.match(r"  (opk_\S+)", line)
    if m: cur = {"k": m.group(1)}; rows.append(cur); continue
    m = re.match(r"\s+(\S+)\s+(\S+)\s+([\d,.]+)$", line)
    if cur is not None and m:
        name, unit, v = m.groups(); v = float(v.replace(",", ""))
        cur[name] = v * units.get(unit, 1)
for r in rows:
    x, d = r.get("l1tex__m_xbar2l1tex_read_bytes.sum", 0), r.get("dram__bytes_read.sum", 0)
    print(f"{r['k'][:48]:48s} xbar {x/1e6:9.1f} MB dram read {d/1e6:9.1f} MB ratio {x/d if d else 0:5.2f}")
PY
done
grep -E 'cross_entropy' $R/compare-ce-*.txt | cut -c1-250
