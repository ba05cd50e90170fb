#!/usr/bin/env bash
# The build-VM side of the device calls (bench/device_call.sh is the GPU side): what a
# session carries to the GPU machine, made from the workflow's build-gpu in one command each
# instead of by hand. Neither output survives a new checkout, so each session makes them anew.
#
#   bench/prepare_device_builds.sh check
#       build-gpu brought up to date (every target, both GPU vendors), then build-check/:
#       the binaries scripts/gpu-check.sh and the benchmarks run, lib/ without static
#       archives, the fake vendors, the HIP-over-CUDA shim, the blas vendor (vendors-blas/)
#       and HEAD.txt (the commit, and "dirty" when the tree had changes). Carry build-check.
#   bench/prepare_device_builds.sh variant NAME PATCH [MACRO=VALUE]
#       PATCH applied (the files it touches must have no uncommitted change), MACRO's
#       `#define MACRO 0` set to VALUE in those files, both GPU vendors rebuilt in build-gpu
#       from that source and copied into build-var-stage/vNAME/, and the files restored (and
#       the vendors rebuilt as HEAD's) whatever happened. The rocm vendor is the variant's
#       own, so that dc_tests' rocm half (HIP-over-CUDA) runs the variant's kernels too.
#       OPKIT_PREPARE_ROCM=0: the cuda vendor alone (about half the build; for A/B timing
#       and dc_cuda_tests; dc_tests then refuses the variant, having no rocm vendor of it).
#       OPKIT_PREPARE_RESTORE_BUILD=0: the files restored but the vendors not rebuilt (the
#       next ninja does it), for a run of variants one after another.
#   bench/prepare_device_builds.sh pack
#       build-var-stage/ into build-var/var.tar.xz (dc_variants unpacks it into var/) and
#       build-check/ into build-var/check.tar.xz (sourcing bench/device_call.sh unpacks it
#       into build-check/), whichever exist. Carry build-var alone: archives only, because
#       the unpacked vendors (about 10 MB each) took calls past the device tool's 64 MiB
#       carry limit (the thirty-sixth session's first calls with the stage unpacked; the
#       fortieth's with build-check itself, 33 MB, once the tracked results had grown to
#       27 MB); xz packs build-check into about 4 MB.
#
# build-gpu must be configured as the workflow says (docs/gpu-runs.md):
#   cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPKIT_CUDA_ARCHS=90 \
#     -DOPKIT_CUDA_PTX= -DOPKIT_VENDOR_ROCM=ON -DOPKIT_ROCM_TEST_ON_CUDA=ON
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${OPKIT_PREPARE_BUILD:-build-gpu}
CHECK=${OPKIT_PREPARE_CHECK:-build-check}
VAR=${OPKIT_PREPARE_VAR:-build-var}
STAGE=${OPKIT_PREPARE_STAGE:-build-var-stage}  # the variants before pack: not carried
JOBS=${JOBS:-2}

die() {
  echo "prepare_device_builds: $*" >&2
  exit 2
}

# The binaries the GPU checks and benchmarks run (scripts/gpu-check.sh, bench/*.py).
BINARIES="opkit-info opkit-conformance opkit_api_tests opkit_unit_tests opkit_cuda_tests opkit_rocm_tests
  opkit_cuda_multigpu_tests opkit_rocm_multigpu_tests tiny_lm bench_dispatch_overhead"

make_check() {
  [ -f "$BUILD/build.ninja" ] || die "$BUILD is not configured (see the header for the cmake line)"
  ninja -C "$BUILD" -j"$JOBS"
  ninja -C "$BUILD" -j"$JOBS" vendors/cuda/all vendors/rocm/all
  rm -rf "$CHECK"
  mkdir -p "$CHECK/bin" "$CHECK/tests" "$CHECK/vendors-blas"
  local b
  for b in $BINARIES; do
    [ -f "$BUILD/bin/$b" ] || die "$BUILD/bin/$b is missing"
    cp -p "$BUILD/bin/$b" "$CHECK/bin/"
  done
  # lib/ as built (symlinks kept), less the static archives only the build links.
  cp -a "$BUILD/lib" "$CHECK/"
  find "$CHECK/lib" -name '*.a' -delete
  cp -a "$BUILD/tests/fake_vendor" "$BUILD/tests/hip_on_cuda" "$CHECK/tests/"
  find "$CHECK/tests" \( -name CMakeFiles -o -name '*.cmake' -o -name Makefile \) -prune -exec rm -rf {} +
  cp -p "$BUILD"/vendors/blas/libopkit_vendor_blas.so* "$CHECK/vendors-blas/" 2>/dev/null ||
    echo "prepare_device_builds: no blas vendor in $BUILD (left out)"
  { git rev-parse HEAD; git diff --quiet HEAD || echo dirty; } > "$CHECK/HEAD.txt"
  du -sh "$CHECK"
}

PATCHED=""  # the files the variant's patch touches, restored on exit

ROCM=${OPKIT_PREPARE_ROCM:-1}
RESTORE_BUILD=${OPKIT_PREPARE_RESTORE_BUILD:-1}

# The vendor targets a variant builds: the cuda vendor, and the rocm vendor unless ROCM=0.
vendor_targets() {
  if [ "$ROCM" = 0 ]; then echo vendors/cuda/all; else echo vendors/cuda/all vendors/rocm/all; fi
}

restore_patched() {
  local f
  for f in $PATCHED; do
    if git cat-file -e "HEAD:$f" 2> /dev/null; then git checkout -q HEAD -- "$f"; else rm -f "$f"; fi
  done
  # shellcheck disable=SC2046
  [ "$RESTORE_BUILD" = 0 ] || ninja -C "$BUILD" -j"$JOBS" $(vendor_targets) > /dev/null
}

make_variant() {
  local name=$1 patch=$2 setting=${3:-}
  [ -f "$patch" ] || die "no patch $patch"
  local files f
  files=$(git apply --numstat "$patch" | cut -f3)
  for f in $files; do  # nothing of the tree's own may be lost when the files are restored
    if git cat-file -e "HEAD:$f" 2> /dev/null; then
      git diff --quiet HEAD -- "$f" || die "$f has uncommitted changes: commit or stash them first"
    else
      [ ! -e "$f" ] || die "$f exists but is not committed: the patch would create it"
    fi
  done
  PATCHED=$files
  trap restore_patched EXIT
  git apply "$patch"
  if [ -n "$setting" ]; then
    local macro=${setting%%=*} value=${setting#*=}
    # shellcheck disable=SC2086
    grep -l "^#define $macro 0$" $files > /dev/null || die "the patch defines no '#define $macro 0'"
    # shellcheck disable=SC2086
    sed -i "s/^#define $macro 0$/#define $macro $value/" $files
  fi
  # shellcheck disable=SC2046
  ninja -C "$BUILD" -j"$JOBS" $(vendor_targets)
  local dir="$STAGE/v$name"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp -p "$BUILD/lib/opkit/vendors/libopkit_vendor_cuda.so" "$dir/"
  [ "$ROCM" = 0 ] || cp -p "$BUILD/lib/opkit/vendors/libopkit_vendor_rocm.so" "$dir/"
  local vendors="cuda and rocm vendors"
  [ "$ROCM" != 0 ] || vendors="cuda vendor only"
  echo "$patch ${setting:-(no setting)} on $(git rev-parse --short HEAD), $vendors" > "$dir/VARIANT.txt"
  echo "prepare_device_builds: $dir"
}

case ${1:-} in
  check) make_check ;;
  variant)
    if [ $# -lt 3 ] || [ $# -gt 4 ]; then die "usage: variant NAME PATCH [MACRO=VALUE]"; fi
    make_variant "$2" "$3" "${4:-}"
    ;;
  pack)
    [ -d "$STAGE" ] || [ -d "$CHECK" ] || die "nothing to pack: no $CHECK and no variants in $STAGE"
    rm -rf "$VAR"  # an archive left from an earlier pack would travel as this one's
    mkdir -p "$VAR"
    [ ! -d "$STAGE" ] || tar cJf "$VAR/var.tar.xz" -C "$STAGE" .
    [ ! -d "$CHECK" ] || tar cJf "$VAR/check.tar.xz" -C "$CHECK" .
    du -sh "$VAR"/*.tar.xz
    ;;
  *) die "usage: $0 check | variant NAME PATCH [MACRO=VALUE] | pack" ;;
esac
