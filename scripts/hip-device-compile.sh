#!/usr/bin/env bash
# Device-only HIP compile of every kernel module in vendors/gpu for AMD targets, with a
# gate on the produced code objects. Needs no AMD GPU: Debian's HIP 5.2 toolchain is enough
#   apt-get install -y hipcc libamdhip64-dev rocm-device-libs   (clang 15, HIP 5.2.3)
#
# usage: scripts/hip-device-compile.sh [outdir] [archs...]
#   outdir  default build-hip (git-ignored); code objects go to outdir/<arch>/<module>.co
#   archs   default gfx908 gfx90a gfx940 gfx1030
# environment:
#   HIP_CLANG            the compiler (default clang++-15, else clang++)
#   ROCM_PATH            default /usr (Debian)
#   HIP_DEVICE_LIB_PATH  the amdgcn bitcode libraries (default: Debian's multiarch path)
#   JOBS                 compiles run at once (default nproc)
#   LLVM_READELF         default llvm-readelf-15, else /usr/lib/llvm-15/bin/llvm-readelf
#   EXPECT_NAMES         a file of kernel names (one a line, e.g. from the nvcc cubins) that
#                        every arch must have exactly
#
# The modules are the OPK_MODULE(name) lines of vendors/gpu/kernel_modules.h, the only list
# of them. Every module is compiled for every arch with -Wall -Wextra -Werror; any error or
# warning fails the run. Then scripts/check-code-objects.py reads each code object's
# amdhsa.kernels metadata (llvm-readelf --notes) and fails unless every kernel's
# .wavefront_size is the arch's (64 on gfx8/gfx9, 32 on gfx10+), OPK_WARP_SIZE as the
# device pass of gpu_compat.h sees it agrees, no kernel uses a dynamic stack and every
# arch has the same kernel names; it prints per arch the kernel count, the kernels with
# scratch and with VGPR spills, and the largest LDS. Exit status 0 = all good.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/build-hip}
shift || true
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(gfx908 gfx90a gfx940 gfx1030)
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
readelf=${LLVM_READELF:-}
if [ -z "$readelf" ]; then
    if command -v llvm-readelf-15 >/dev/null; then readelf=llvm-readelf-15; else readelf=/usr/lib/llvm-15/bin/llvm-readelf; fi
fi
command -v "$cxx" >/dev/null || { echo "hip-device-compile: $cxx not found (apt-get install hipcc)" >&2; exit 2; }
[ -d "$devlib" ] || { echo "hip-device-compile: no device libraries at $devlib (apt-get install rocm-device-libs)" >&2; exit 2; }

gpu=$root/vendors/gpu
modules=$(sed -n 's/^[[:space:]]*OPK_MODULE(\([A-Za-z0-9_]*\)).*/\1/p' "$gpu/kernel_modules.h")
[ -n "$modules" ] || { echo "hip-device-compile: no OPK_MODULE lines in $gpu/kernel_modules.h" >&2; exit 2; }

echo "hip-device-compile: $($cxx --version | head -1)"
echo "  modules: $(echo $modules)"
echo "  archs:   ${archs[*]}   jobs: $jobs   out: $out"

# One module for one arch: the command line of ../shared/reference/rocm.md §1 plus
# -Wall -Wextra -Werror. Prints "<seconds> <arch> <module> <rc>"; the log is kept.
compile_one() {
    local arch=$1 m=$2 t0 t1 rc=0
    mkdir -p "$out/$arch"
    t0=$(date +%s.%N)
    "$cxx" -x hip -std=c++17 -O3 --offload-arch="$arch" --cuda-device-only \
        --rocm-path="$rocm" --rocm-device-lib-path="$devlib" --no-gpu-bundle-output \
        -Wall -Wextra -Werror -c "$gpu/$m.cu" -o "$out/$arch/$m.co" >"$out/$arch/$m.log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    awk -v t0="$t0" -v t1="$t1" -v a="$arch" -v m="$m" -v rc="$rc" 'BEGIN {printf "%7.1f %-8s %-14s %d\n", t1 - t0, a, m, rc}'
}
export -f compile_one
export cxx rocm devlib out gpu

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

check=(python3 "$root/scripts/check-code-objects.py" --readelf "$readelf" --tsv "$out/resources.tsv")
[ -z "${EXPECT_NAMES:-}" ] || check+=(--expect-names "$EXPECT_NAMES")
"${check[@]}" "$out" "${archs[@]}"
