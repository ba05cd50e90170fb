#!/usr/bin/env bash
# check_install_tree.sh BUILD_DIR WORK_DIR — what a user gets from `cmake --install`, with
# no root and nothing installed on the system (docs/install.md):
#  1. the whole install lays out DESIGN §10's files under a fresh prefix;
#  2. each component holds only its own files (runtime: libopkit.so.1; a vendor: its .so);
#  3. a program outside the tree builds against the prefix through find_package(opkit) and
#     through pkg-config, and runs;
#  4. libopkit installed under the prefix finds the vendors installed under the same
#     prefix with no environment variable (opkit-info and the consumer list them there).
set -euo pipefail
build=$(cd "$1" && pwd)
work=$2
say() { echo "check_install_tree: $*"; }
die() { echo "check_install_tree: FAIL: $*" >&2; exit 1; }
# shellcheck source=consumer_checks.sh
source "$(dirname "$0")/consumer_checks.sh"
# Nothing from the caller's environment may point opkit at its vendors.
unset OPKIT_VENDOR_PATH OPKIT_VENDORS OPKIT_VENDORS_DISABLE OPKIT_LIBRARY

rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; die "cmake --install failed"; }

lib=$(cd "$prefix" && find . -name libopkit.so.1 -type l | head -1)
[ -n "$lib" ] || die "no libopkit.so.1 under $prefix"
libdir=$prefix/$(dirname "${lib#./}")
for f in "$libdir/libopkit.so" "$prefix/include/opkit.h" "$prefix/include/opkit_vendor.h" \
         "$prefix/include/opkit.hpp" "$libdir/cmake/opkit/opkitConfig.cmake" \
         "$libdir/cmake/opkit/opkitConfigVersion.cmake" "$libdir/pkgconfig/opkit.pc"; do
  [ -e "$f" ] || die "missing after install: ${f#"$prefix"/}"
done
[ "$(readlink "$libdir/libopkit.so.1")" = "$(basename "$(readlink -f "$libdir/libopkit.so.1")")" ] ||
  die "libopkit.so.1 is not a link to the versioned file"
soname=$(readelf -d "$libdir/libopkit.so.1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libopkit.so.1 ] || die "soname is '$soname', not libopkit.so.1"
# (Output captured first: with pipefail, `cmd | grep -q` fails when grep exits early.)
syms=$(readelf --dyn-syms -W "$libdir/libopkit.so.1")
grep -q "opkit_init@@OPKIT_1" <<<"$syms" || die "opkit_init lost its OPKIT_1 symbol version"
say "layout: ${libdir#"$prefix"/}/libopkit.so.1 (soname, OPKIT_1), headers, CMake package, opkit.pc"

# Components: each alone into its own prefix.
vendors=()
for so in "$libdir"/opkit/vendors/libopkit_vendor_*.so; do
  [ -e "$so" ] && vendors+=("$(basename "$so" .so | sed 's/^libopkit_vendor_//')")
done
check_component() {  # check_component NAME REGEX-EVERY-FILE-MUST-MATCH
  local c=$1 allowed=$2 dir=$work/component-$1 bad
  cmake --install "$build" --prefix "$dir" --component "$c" >/dev/null
  bad=$(cd "$dir" && find . \( -type f -o -type l \) | sed 's|^\./||' | grep -Ev "$allowed" || true)
  [ -z "$bad" ] || die "component $c installs files outside its part: $bad"
  [ -n "$(cd "$dir" && find . \( -type f -o -type l \))" ] || die "component $c installs nothing"
}
rel=${libdir#"$prefix"/}
check_component runtime "^$rel/libopkit\.so\.1(\.[0-9]+)*$|^share/doc/libopkit1/"
check_component dev "^include/opkit(|_vendor)\.h(pp)?$|^$rel/libopkit\.so$|^$rel/cmake/opkit/|^$rel/pkgconfig/opkit\.pc$|^share/doc/libopkit-dev/"
check_component tools "^bin/opkit-(info|conformance|bench)$|^share/man/man1/opkit-(info|conformance|bench)\.1\.gz$|^share/doc/opkit-tools/"
for v in "${vendors[@]}"; do
  check_component "vendor-$v" "^$rel/opkit/vendors/libopkit_vendor_$v\.so$|^share/doc/opkit-vendor-$v/"
done
say "components: runtime, dev, tools${vendors[*]:+, }$(printf 'vendor-%s ' "${vendors[@]}")each hold only their own files"

# Consumers, built against the prefix.
build_and_run_consumers "$prefix" "$libdir/pkgconfig"

# Vendors found through libopkit's own location, no environment variable. The tools may
# carry no RPATH (an install configured for /usr leaves it out, as Debian asks), so the
# library is named through LD_LIBRARY_PATH: that says where libopkit is, not its vendors.
export LD_LIBRARY_PATH=$libdir
info=$("$prefix/bin/opkit-info") || die "opkit-info failed"
real_vendor_dir=$(readlink -f "$libdir/opkit/vendors")
for v in "${vendors[@]}"; do
  grep -Eq "^  $v +[A-Z_]+ " <<<"$info" || die "opkit-info does not list the $v vendor installed under the prefix"
  grep -Fq "path: $real_vendor_dir/libopkit_vendor_$v.so" <<<"$info" ||
    die "opkit-info lists $v, but not from $real_vendor_dir"
  grep -Eq "^vendor $v [A-Z_]+ $real_vendor_dir/libopkit_vendor_$v.so$" "$work/cmake-consumer.out" ||
    die "the find_package consumer did not see the $v vendor of the prefix"
done
say "opkit-info and the consumer see ${#vendors[@]} vendor(s) from $real_vendor_dir: ${vendors[*]:-none built}"

# docs/vendor-guide.md, every command, against this prefix.
PATH=$prefix/bin:$PATH CMAKE_PREFIX_PATH=$prefix \
  "$(dirname "$0")/check_vendor_guide.sh" "$(dirname "$0")/../../docs/vendor-guide.md" \
  "$(dirname "$0")/../../examples/vendor_skeleton" "$work/vendor-guide"
say "ok"
