#!/usr/bin/env bash
# Device-only HIP compile of every kernel module in vendors/gpu for AMD targets, with a
# gate on the produced code objects. Needs no AMD GPU: Debian's HIP 5.2 toolchain is enough
#   apt-get install -y hipcc libamdhip64-dev rocm-device-libs   (clang 15, HIP 5.2.3)
#
# usage: scripts/hip-device-compile.sh [outdir] [archs...]
#        scripts/hip-device-compile.sh --check-only DIR [archs...]
#   outdir  default build-hip (git-ignored); code objects go to outdir/<arch>/<module>.co
#   archs   default gfx900 gfx906 gfx908 gfx90a gfx940 gfx1030 (what Debian's clang 15 and
#           device libraries can build; docs/rocm-code-objects.md lists the newer targets)
#   --check-only DIR  compile nothing: run the gate on the existing DIR/<arch>/<module>.co,
#           e.g. the rocm vendor's <build>/vendors/rocm/code-objects; without archs,
#           every DIR/gfx* directory. Needs only python3, llvm-readelf and a C++
#           preprocessor (for the host's kernel names), not hipcc.
# environment:
#   HIP_CLANG            the compiler (default clang++-15, else clang++)
#   ROCM_PATH            default /usr (Debian)
#   HIP_DEVICE_LIB_PATH  the amdgcn bitcode libraries (default: Debian's multiarch path)
#   JOBS                 compiles run at once (default nproc)
#   LLVM_READELF         default llvm-readelf-15, else /usr/lib/llvm-15/bin/llvm-readelf
#   EXPECT_NAMES         a file of kernel names (one a line, e.g. from the nvcc cubins) that
#                        every arch must have exactly
#   CHECK_ARGS           more options for scripts/check-code-objects.py (word-split)
#
# The modules are the OPK_MODULE(name) lines of vendors/gpu/kernel_modules.h, the only list
# of them; the flags beyond the fixed command line are vendors/gpu/hip_device_flags, the
# only list of them (the rocm vendor's CMake reads the same file). Any error or warning
# fails the run. Then scripts/check-code-objects.py reads each code object's
# amdhsa.kernels metadata (llvm-readelf --notes) and fails on a missing module or kernel,
# a wrong wavefront width, a dynamic stack, or LDS, scratch or VGPR spills beyond
# scripts/hip-code-object-budgets.tsv; it prints per target and per kernel family the
# resources and the occupancy. Exit status 0 = all good.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
default_archs=(gfx900 gfx906 gfx908 gfx90a gfx940 gfx1030)

readelf=${LLVM_READELF:-}
if [ -z "$readelf" ]; then
    if command -v llvm-readelf-15 >/dev/null; then readelf=llvm-readelf-15; else readelf=/usr/lib/llvm-15/bin/llvm-readelf; fi
fi

# The gate alone. The OPK_WARP_SIZE cross-check needs the compiler, so here the expected
# wavefront comes from the target's name only (gfx8/gfx9 64, gfx10+ 32); the code objects'
# own .wavefront_size is still checked against it.
if [ "${1:-}" = "--check-only" ]; then
    [ $# -ge 2 ] || { echo "usage: $0 --check-only DIR [archs...]" >&2; exit 2; }
    dir=$2
    shift 2
    [ -d "$dir" ] || { echo "hip-device-compile: no directory $dir" >&2; exit 2; }
    check=(python3 "$root/scripts/check-code-objects.py" --readelf "$readelf"
           --tsv "$dir/resources.tsv" --family-tsv "$dir/families.tsv")
    [ -z "${EXPECT_NAMES:-}" ] || check+=(--expect-names "$EXPECT_NAMES")
    # shellcheck disable=SC2206
    [ -z "${CHECK_ARGS:-}" ] || check+=(${CHECK_ARGS})
    exec "${check[@]}" "$dir" "$@"
fi

out=${1:-$root/build-hip}
shift || true
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=("${default_archs[@]}")
mkdir -p "$out"
out=$(cd "$out" && pwd)

cxx=${HIP_CLANG:-}
if [ -z "$cxx" ]; then
    if command -v clang++-15 >/dev/null; then cxx=clang++-15; else cxx=clang++; fi
fi
rocm=${ROCM_PATH:-/usr}
multiarch=$( (gcc -print-multiarch || dpkg-architecture -qDEB_HOST_MULTIARCH) 2>/dev/null || echo x86_64-linux-gnu)
devlib=${HIP_DEVICE_LIB_PATH:-/usr/lib/$multiarch/amdgcn/bitcode}
jobs=${JOBS:-$(nproc)}
command -v "$cxx" >/dev/null || { echo "hip-device-compile: $cxx not found (apt-get install hipcc)" >&2; exit 2; }
[ -d "$devlib" ] || { echo "hip-device-compile: no device libraries at $devlib (apt-get install rocm-device-libs)" >&2; exit 2; }

gpu=$root/vendors/gpu
modules=$(sed -n 's/^[[:space:]]*OPK_MODULE(\([A-Za-z0-9_]*\)).*/\1/p' "$gpu/kernel_modules.h")
[ -n "$modules" ] || { echo "hip-device-compile: no OPK_MODULE lines in $gpu/kernel_modules.h" >&2; exit 2; }
# vendors/gpu/hip_device_flags: '#' starts a comment, flags are separated by white space
# (the same reading as vendors/rocm/CMakeLists.txt).
flags=$(sed 's/#.*//' "$gpu/hip_device_flags" | tr -s ' \t\n' ' ')

echo "hip-device-compile: $($cxx --version | head -1)"
echo "  modules: $(echo $modules)"
echo "  archs:   ${archs[*]}   jobs: $jobs   out: $out"
echo "  flags:   $flags"

# One module for one arch: the fixed command line of ../shared/reference/rocm.md §1 plus
# the flags file. Prints "<seconds> <arch> <module> <rc>"; the log is kept.
compile_one() {
    local arch=$1 m=$2 t0 t1 rc=0
    mkdir -p "$out/$arch"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$cxx" -x hip -std=c++17 --offload-arch="$arch" --cuda-device-only \
        --rocm-path="$rocm" --rocm-device-lib-path="$devlib" --no-gpu-bundle-output \
        $flags -c "$gpu/$m.cu" -o "$out/$arch/$m.co" >"$out/$arch/$m.log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    awk -v t0="$t0" -v t1="$t1" -v a="$arch" -v m="$m" -v rc="$rc" 'BEGIN {printf "%7.1f %-8s %-14s %d\n", t1 - t0, a, m, rc}'
}
export -f compile_one
export cxx rocm devlib out gpu flags

t_start=$(date +%s.%N)
results=$(for a in "${archs[@]}"; do for m in $modules; do echo "$a $m"; done; done |
    xargs -P "$jobs" -n 2 bash -c 'compile_one "$0" "$1"')
t_end=$(date +%s.%N)

echo "  seconds  arch     module         rc"
echo "$results" | sort -k2,2 -k3,3 | sed 's/^/  /'
failed=$(echo "$results" | awk '$4 != 0 {print $2 "/" $3}')
warned=""
for a in "${archs[@]}"; do
    for m in $modules; do
        if [ -s "$out/$a/$m.log" ]; then warned="$warned $a/$m"; fi
    done
done
awk -v t0="$t_start" -v t1="$t_end" -v n="$(echo "$results" | wc -l)" -v j="$jobs" \
    'BEGIN {printf "  wall time %.1f s for %d compiles (%d at a time)\n", t1 - t0, n, j}'
for a in "${archs[@]}"; do
    echo "$results" | awk -v a="$a" '$2 == a {s += $1} END {printf "  %-8s %.1f s of compile time\n", a, s}'
done
bad=$(echo $failed $warned | tr ' ' '\n' | sed '/^$/d' | sort -u)
if [ -n "$bad" ]; then
    for f in $bad; do
        echo "---- $f:" >&2
        head -40 "$out/$f.log" >&2
    done
    echo "hip-device-compile: FAILED (errors or warnings):" $bad >&2
    exit 1
fi

# OPK_WARP_SIZE as the device pass sees it, per arch (checked against the code objects).
for a in "${archs[@]}"; do
    w=$(printf '#include "gpu_compat.h"\nopk_warp_size_is OPK_WARP_SIZE\n' |
        "$cxx" -x hip -std=c++17 --offload-arch="$a" --cuda-device-only --rocm-path="$rocm" \
            --rocm-device-lib-path="$devlib" -I "$gpu" -E - 2>/dev/null | awk '$1 == "opk_warp_size_is" {print $2}')
    echo "$w" >"$out/$a/opk_warp_size"
done

check=(python3 "$root/scripts/check-code-objects.py" --readelf "$readelf"
       --tsv "$out/resources.tsv" --family-tsv "$out/families.tsv")
[ -z "${EXPECT_NAMES:-}" ] || check+=(--expect-names "$EXPECT_NAMES")
# shellcheck disable=SC2206
[ -z "${CHECK_ARGS:-}" ] || check+=(${CHECK_ARGS})
"${check[@]}" "$out" "${archs[@]}"
