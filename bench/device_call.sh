# Shared preamble of the device-call scripts (bench/results/*/device-calls/callN.sh), which
# each session's calls had repeated: source it from the repository root on the GPU machine.
#
#   . bench/device_call.sh r1          # results in a temp dir, archived as $OUT/r1.tgz
#   dc_liger                           # the carried Liger-Kernel wheel into /tmp/site
#   dc_variants                        # build-var/var.tar.xz unpacked into var/
#                                      # (build-var/check.tar.xz, where carried, is unpacked
#                                      # into build-check/ as the helper is sourced)
#   t NAME CMD...                      # CMD's output in NAME.txt, its rc and seconds in times.txt
#   dc_compare NAME ARGS...            # gpu_compare.py ARGS against the peers (Liger-Kernel from
#                                      # dc_liger's /tmp/site) through build-check's libopkit into
#                                      # NAME.json, Triton's and Inductor's caches under $R; packed
#   dc_breakdown NAME ARGS...          # kernel_breakdown.py ARGS --behind-spin against the peers
#                                      # (as dc_compare) into NAME.txt; packed
#   dc_cpu_compare NAME ARGS...        # cpu_compare.py ARGS, the GPU vendors disabled (the CPU
#                                      # defaults against PyTorch CPU) into NAME.json; packed
#   dc_ab NAME VARIANT OPS DTYPES      # gpu_compare.py --impls opkit through variant vVARIANT
#                                      # (base: build-check's own vendor) into NAME.json
#   dc_ab_rounds NAME VARIANT OPS DTYPES N  # N rounds alternating base and the variant
#                                      # (NAME-base-i, NAME-vVARIANT-i), each packed, then
#                                      # their table (bench/ab_table.py) in ab-NAME.txt
#   dc_tests NAME FILTER [VARIANT]     # FILTER's test cases on cuda and on rocm over the
#                                      # HIP-over-CUDA shim side by side, then conformance of
#                                      # both side by side (VARIANT: var/vVARIANT's vendors)
#   dc_cuda_tests NAME FILTER [VARIANT]  # FILTER's test cases on cuda alone (kernels that
#                                      # exist for NVIDIA only: the stash kernels) into NAME.txt
#   dc_ncu_bytes NAME VARIANT REGEX OPS DTYPE  # Nsight Compute's bytes of the kernels matching
#                                      # REGEX in bench/ncu_ops.py --ops OPS --dtype DTYPE
#                                      # (base: build-check's vendor): crossbar to the SMs
#                                      # against DRAM read, L2 sectors and hit rate, time
#                                      # (bench/ncu_bytes_table.py prints them a kernel a line)
#   dc_ncu_gaps NAME CASES             # Nsight Compute's full set on bench/placement_probe.py's
#                                      # --profile CASES (one opkit call and one peer call a
#                                      # case): NAME-stalls.txt a kernel a line
#                                      # (bench/ncu_stall_table.py), NAME-details.txt.gz; packed
#   dc_check [LIMIT]                   # the whole GPU check on build-check, parts limited to
#                                      # LIMIT s (540), logs in check/, its parts' lines shown
#   dc_ncu_source NAME VARIANT REGEX ARGS...  # Nsight Compute's first launch of the kernels
#                                      # matching REGEX in bench/ncu_ops.py ARGS (base or
#                                      # var/vVARIANT's vendor): details page and SASS lines'
#                                      # CSV into NAME-VARIANT-details.txt, -source.txt.gz
#   dc_ab_won NAME OP SHAPE [T]        # true where ab-NAME.txt's ratio for OP at SHAPE is
#                                      # above T (1.003): HEAD's kernels as the variant lost
#   pack                               # the archive, now (call after each step)
#
# The archive leaves out Triton's and Inductor's caches.
set -u
DC_ARCHIVE=${1:?the archive name, e.g. r1}
R=$(mktemp -d)
mkdir -p "$R/triton" "$R/inductor"
export OPKIT_LOG_LEVEL=error
# build-check travels packed (prepare_device_builds.sh pack): a carried archive replaces
# whatever build-check an earlier call on this machine left (ignored outputs stay there).
if [ -f build-var/check.tar.xz ]; then
    rm -rf build-check && mkdir build-check && tar xJf build-var/check.tar.xz -C build-check
fi
DC_LIB=$PWD/build-check/lib/libopkit.so.1

t() {
    local name=$1
    shift
    local t0=$SECONDS
    "$@" > "$R/$name.txt" 2>&1
    echo "$name rc $? $((SECONDS - t0)) s" | tee -a "$R/times.txt"
}

pack() { tar czf "$OUT/$DC_ARCHIVE.tgz" --exclude=triton --exclude=inductor -C "$R" .; }

dc_liger() {
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
}

dc_variants() { mkdir -p var && tar xJf build-var/var.tar.xz -C var; }

# CMD... with the peers beside opkit: Liger-Kernel from dc_liger's /tmp/site, Triton's and
# Inductor's caches under $R, build-check's libopkit.
dc_peers() {
    env PYTHONPATH="/tmp/site:$PWD/python" TRITON_CACHE_DIR="$R/triton" TORCHINDUCTOR_CACHE_DIR="$R/inductor" \
        OPKIT_LIBRARY="$DC_LIB" "$@"
}

# The runs behind docs/PERFORMANCE.md's standing table (every op against the peers) and its
# CPU table, as the sessions' calls had written them out each time. Each stops at 220 s.
dc_compare() {
    local name=$1
    shift
    t "$name" dc_peers timeout 220 python3 bench/gpu_compare.py "$@" --out "$R/$name.json"
    pack
}

# bench/kernel_breakdown.py ARGS against torch.compile and Liger-Kernel, with --behind-spin
# (events and kernels of the same calls), into NAME.txt; stops at 120 s; packed.
dc_breakdown() {
    local name=$1
    shift
    t "$name" dc_peers timeout 120 python3 bench/kernel_breakdown.py --impls opkit,compile,liger --behind-spin "$@"
    pack
}

dc_cpu_compare() {
    local name=$1
    shift
    t "$name" timeout 220 env PYTHONPATH="$PWD/python" OPKIT_VENDORS_DISABLE=cuda,rocm OPKIT_LIBRARY="$DC_LIB" \
        python3 bench/cpu_compare.py "$@" --out "$R/$name.json"
    pack
}

# The cuda vendor of variant vVARIANT (dc_variants' var/), or nothing for "base" or no
# variant (build-check's own vendor): what OPKIT_VENDOR_PATH is set to.
dc_cuda_vendor() {
    case "${1:-base}" in
        base) echo "" ;;
        *) echo "$PWD/var/v$1/libopkit_vendor_cuda.so" ;;
    esac
}

dc_ab() {
    local vp
    vp=$(dc_cuda_vendor "$2")
    t "$1" timeout 90 env PYTHONPATH="$PWD/python" OPKIT_LIBRARY="$DC_LIB" OPKIT_VENDOR_PATH="$vp" \
        python3 bench/gpu_compare.py --impls opkit --ops "$3" --dtypes "$4" --out "$R/$1.json"
}

# The shim's three libraries, for the rocm vendor's tests and conformance.
dc_hip_path() {
    local h=$PWD/build-check/tests/hip_on_cuda
    echo "$h/hip:$h/hipblaslt:$h/rocblas"
}

# NAME-tests(.txt), NAME-tests-rocm, NAME-conformance, NAME-conformance-rocm. A variant's
# cuda vendor goes through OPKIT_VENDOR_PATH; its rocm vendor takes the place of
# build-check's (the rocm tests load the vendor beside their libopkit), whose own copy
# comes back for a call without a variant. Returns 1, running nothing, where a vendor
# cannot be put in place. Catch2 takes a filter's wildcards only at a pattern's ends
# ("ops: cross_entropy*").
dc_tests() {
    local name=$1 filter=$2 vp= hip p1 p2
    local rocm=build-check/lib/opkit/vendors/libopkit_vendor_rocm.so base=build-check/rocm-vendor-base.so
    hip=$(dc_hip_path)
    [ -f "$base" ] || cp "$rocm" "$base" || return 1
    if [ -n "${3:-}" ]; then
        vp=$(dc_cuda_vendor "$3")
        [ -f "$vp" ] || { echo "dc_tests: no $vp" >&2; return 1; }
        cp "var/v$3/libopkit_vendor_rocm.so" "$rocm" || return 1
    else
        cp "$base" "$rocm" || return 1
    fi
    t "$name-tests" timeout 250 env OPKIT_VENDOR_PATH="$vp" build-check/bin/opkit_cuda_tests "$filter" &
    p1=$!
    t "$name-tests-rocm" timeout 250 env LD_LIBRARY_PATH="$hip" build-check/bin/opkit_rocm_tests "$filter" &
    p2=$!
    wait "$p1" "$p2"
    t "$name-conformance" timeout 100 env OPKIT_VENDOR_PATH="$vp" build-check/bin/opkit-conformance --vendor cuda &
    p1=$!
    t "$name-conformance-rocm" timeout 100 env LD_LIBRARY_PATH="$hip" build-check/bin/opkit-conformance --vendor rocm &
    p2=$!
    wait "$p1" "$p2"
}

# NAME(.txt): FILTER's cases of the cuda tests through variant vVARIANT's cuda vendor (none:
# build-check's). The norm stash test case alone takes 60-80 s, hence the limit. Returns
# 1, running nothing, where the variant's vendor is not there.
dc_cuda_tests() {
    local vp
    vp=$(dc_cuda_vendor "${3:-}")
    [ -z "$vp" ] || [ -f "$vp" ] || { echo "dc_cuda_tests: no $vp" >&2; return 1; }
    t "$1" timeout 250 env OPKIT_VENDOR_PATH="$vp" build-check/bin/opkit_cuda_tests "$2"
}

# The counters that showed the fp32 split backwards asking L2 for every sector twice
# (twenty-sixth session): a kernel that reads its data once has crossbar bytes equal to
# its DRAM read bytes.
DC_NCU_BYTES=l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
dc_ncu_bytes() {
    local vp
    vp=$(dc_cuda_vendor "$2")
    t "$1" timeout 150 env PYTHONPATH="$PWD/python" OPKIT_LIBRARY="$DC_LIB" OPKIT_VENDOR_PATH="$vp" \
        ncu --clock-control none --metrics "$DC_NCU_BYTES" -k "regex:$3" python3 bench/ncu_ops.py --ops "$4" --dtype "$5"
}

# The profile behind PERFORMANCE.md's stall tables, as the thirty-second session's call 8
# and the thirty-fifth's call 3 had written it out. The report stays out of the archive
# (the details page has what the table reads).
dc_ncu_gaps() {
    local name=$1 cases=$2
    t "$name" timeout 400 env PYTHONPATH="/tmp/site:$PWD/python" TRITON_CACHE_DIR="$R/triton" \
        TORCHINDUCTOR_CACHE_DIR="$R/inductor" OPKIT_LIBRARY="$DC_LIB" \
        ncu --profile-from-start off --clock-control none --set full --export "/tmp/$name" \
        python3 bench/placement_probe.py --profile --ops "$cases"
    t "$name-details" ncu --import "/tmp/$name.ncu-rep" --page details --print-details all
    t "$name-stalls" python3 bench/ncu_stall_table.py "$R/$name-details.txt"
    gzip -f "$R/$name-details.txt"
    pack
}

# Nsight Compute's first launch of the kernels matching REGEX in bench/ncu_ops.py ARGS,
# through VARIANT's cuda vendor (base: build-check's): NAME-VARIANT-details.txt and the SASS
# lines' stall samples, sectors and wavefronts as CSV (NAME-VARIANT-source.txt.gz), as the
# forty-seventh session's call 5 read them; the report itself stays out of the archive.
dc_ncu_source() {
    local name=$1-$2 vp regex=$3
    vp=$(dc_cuda_vendor "$2")
    shift 3
    t "$name" timeout 150 env PYTHONPATH="$PWD/python" OPKIT_LIBRARY="$DC_LIB" OPKIT_VENDOR_PATH="$vp" \
        ncu --clock-control none -k "regex:$regex" -c 1 --section SpeedOfLight --section WarpStateStats \
        --section SchedulerStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
        --section SourceCounters -o "/tmp/$name" python3 bench/ncu_ops.py "$@"
    t "$name-details" ncu -i "/tmp/$name.ncu-rep" --page details
    t "$name-source" ncu -i "/tmp/$name.ncu-rep" --page source --csv --print-source sass
    gzip -9f "$R/$name-source.txt"
    pack
}

dc_ab_rounds() {
    local name=$1 variant=$2 ops=$3 dtypes=$4 rounds=$5 i
    for i in $(seq 1 "$rounds"); do
        dc_ab "$name-base-$i" base "$ops" "$dtypes"
        pack
        dc_ab "$name-v$variant-$i" "$variant" "$ops" "$dtypes"
        pack
    done
    python3 bench/ab_table.py "$R" "$name-base" "$name-v$variant" > "$R/ab-$name.txt" 2>&1
    pack
}

# The whole GPU check (scripts/gpu-check-split.sh) on build-check, each part limited to
# LIMIT seconds (default 540: the rocm tests over HIP-over-CUDA took 392 s in one call of
# the fortieth session and more than 430 s in the next), its logs under check/; packed.
dc_check() {
    local limit=${1:-540}
    (
        export OUT="$R/check" OPKIT_GPU_CHECK_PART_TIMEOUT="$limit"
        t check-split scripts/gpu-check-split.sh build-check
    )
    pack
    grep "== part" "$R/check-split.txt"
}

# Whether dc_ab_rounds NAME's table has base / variant above THRESHOLD (default 1.003) for
# OP at SHAPE: the gate of a candidate's check, with HEAD's kernels as the variant (the
# candidate as build-check), so that a check is spent only on a candidate that won.
dc_ab_won() {
    local name=$1 op=$2 shape=$3 threshold=${4:-1.003} ratio
    ratio=$(awk -v op="$op" -v shape="$shape" '$1 == op && $2 == shape {print $NF}' "$R/ab-$name.txt")
    echo "ab-$name: $op $shape variant / candidate ${ratio:-missing}"
    [ -n "$ratio" ] && awk -v r="$ratio" -v t="$threshold" 'BEGIN {exit !(r > t)}'
}
