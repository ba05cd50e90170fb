#!/usr/bin/env bash
# ci-packages.sh [BUILD_DIR] — the Debian packages, proven on this machine (as root, in CI):
#  1. CPack builds them from BUILD_DIR (configured with -DCMAKE_INSTALL_PREFIX=/usr, as
#     .ci/run's build step does) and lintian finds no error in them;
#  2. dpkg -i libopkit1, libopkit-dev, opkit-tools; a program outside the tree builds with
#     find_package(opkit) and with pkg-config against /usr, and runs;
#     docs/vendor-guide.md's commands build, test and install its example vendor;
#  3. each opkit-vendor-* package, installed alone, appears in opkit-info with no other
#     step (cuda: NO_DEVICE without a GPU); removed with dpkg -r, it is gone and libopkit
#     and both programs still work;
#  4. everything is purged at the end (also on failure): the machine is left as found.
# Refuses to start when an opkit package is already installed (it would remove it).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
say() { echo "ci-packages: $*"; }
die() { echo "ci-packages: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (dpkg -i)"
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
[ "$prefix" = /usr ] || die "$build is configured for prefix '$prefix'; Debian packages need -DCMAKE_INSTALL_PREFIX=/usr"
installed=$(dpkg-query -W -f='${Package} ${Status}\n' 'libopkit*' 'opkit-*' 2>/dev/null | grep -c " installed$" || true)
[ "$installed" = 0 ] || die "opkit packages are already installed here; this check would remove them"
t0=$SECONDS

# 1. Build and lint.
rm -rf "$build/packages"
(cd "$build" && cpack -G DEB) >"$build/cpack.log" 2>&1 || { cat "$build/cpack.log"; die "cpack failed"; }
mapfile -t debs < <(ls "$build"/packages/*.deb)
say "built ${#debs[@]} packages in $((SECONDS - t0)) s: $(printf '%s ' "${debs[@]##*/}")"
for p in libopkit1 libopkit-dev opkit-tools opkit-vendor-cuda; do
  if [ "$p" = opkit-vendor-cuda ] && ! [ -e "$build/lib/opkit/vendors/libopkit_vendor_cuda.so" ]; then
    say "no cuda vendor in this build (no nvcc): its package is not checked"; continue
  fi
  ls "$build"/packages/"${p}"_*.deb >/dev/null 2>&1 || die "no $p package was built"
done
for deb in "${debs[@]}"; do  # a vendor package holds its .so and its docs, nothing else
  name=$(dpkg-deb -f "$deb" Package)
  case $name in opkit-vendor-*)
    v=${name#opkit-vendor-}
    extra=$(dpkg-deb -c "$deb" | awk '{print $NF}' | grep -v '/$' |
            grep -Ev "^\./usr/lib/[^/]+/opkit/vendors/libopkit_vendor_$v\.so$|^\./usr/share/doc/$name/(copyright|changelog\.Debian\.gz)$" || true)
    [ -z "$extra" ] || die "$name holds more than its vendor: $extra"
    grep -Eq "(^|, )libopkit1 \(>= [0-9.]+\)" <<<"$(dpkg-deb -f "$deb" Depends)" || die "$name does not depend on libopkit1 (>= version)"
  esac
done
lintian_out=$(lintian --tag-display-limit 0 "${debs[@]}" 2>&1 | grep -v "running with root privileges" || true)
echo "$lintian_out" | sed 's/^/  lintian: /'
if grep -q "^E: " <<<"$lintian_out"; then die "lintian reports errors"; fi
say "lintian: no errors ($(grep -c '^W: ' <<<"$lintian_out" || true) warnings, listed in docs/install.md)"

# From here on, whatever happens, leave the machine as it was.
purge() {
  local pkgs
  pkgs=$(dpkg-query -W -f='${Package} ${Status}\n' 'libopkit*' 'opkit-*' 2>/dev/null | awk '/ installed$/ {print $1}')
  [ -z "$pkgs" ] || dpkg -P $pkgs >/dev/null
}
trap purge EXIT
deb_of() { ls "$build"/packages/"$1"_*.deb; }

# 2. Library, headers, tools.
dpkg -i "$(deb_of libopkit1)" "$(deb_of libopkit-dev)" "$(deb_of opkit-tools)" >/dev/null
libdir=$(dirname "$(dpkg -L libopkit1 | grep '/libopkit\.so\.1$')")
say "installed libopkit1, libopkit-dev, opkit-tools (library in $libdir)"
# (The cache may name the /lib alias of a merged /usr.)
cached=$(ldconfig -p | sed -n 's/^\s*libopkit\.so\.1 (.*) => //p')
[ -n "$cached" ] && [ "$(readlink -f "$cached")" = "$(readlink -f "$libdir/libopkit.so.1")" ] ||
  die "the loader cache does not know libopkit.so.1 (the ldconfig trigger did not run)"
work=$(mktemp -d)
trap 'purge; rm -rf "$work"' EXIT
# shellcheck source=../tests/packaging/consumer_checks.sh
source tests/packaging/consumer_checks.sh
unset OPKIT_VENDOR_PATH OPKIT_VENDORS OPKIT_VENDORS_DISABLE LD_LIBRARY_PATH
build_and_run_consumers "" ""   # the system's own search paths only
info=$(opkit-info) || die "opkit-info failed"
grep -q "^vendors (0)" <<<"$info" || die "vendors listed before any vendor package was installed"
searched=$(sed -n 's/^  install directory  //p' <<<"$info")
[ "$(readlink -f "$searched")" = "$(readlink -f "$libdir/opkit/vendors")" ] ||
  die "opkit-info searches '$searched', not $libdir/opkit/vendors"

# docs/vendor-guide.md, every command, against the installed packages (its vendor is
# installed into libopkit's vendor directory and removed again).
tests/packaging/check_vendor_guide.sh docs/vendor-guide.md examples/vendor_skeleton "$work/vendor-guide"
rmdir "$libdir/opkit/vendors" "$libdir/opkit" 2>/dev/null || true

# 3. Each vendor package on its own.
for deb in "$build"/packages/opkit-vendor-*.deb; do
  name=$(dpkg-deb -f "$deb" Package); v=${name#opkit-vendor-}
  dpkg -i "$deb" >/dev/null
  info=$(opkit-info) || die "opkit-info failed with $name installed"
  line=$(grep -E "^  $v +[A-Z_]+ " <<<"$info") || die "opkit-info does not list the $v vendor after dpkg -i $name"
  grep -Fq "path: $libdir/opkit/vendors/libopkit_vendor_$v.so" <<<"$info" || die "$v is not loaded from the package's file"
  grep -Eq "^vendor $v [A-Z_]+ " <<<"$("$work/pc-consumer")" || die "a program linked before $name was installed does not see it"
  say "dpkg -i $name: opkit-info lists it: $(sed 's/  */ /g' <<<"$line")"
  dpkg -r "$name" >/dev/null
  info=$(opkit-info) || die "opkit-info failed after dpkg -r $name"
  ! grep -Eq "^  $v +[A-Z_]+ " <<<"$info" || die "$v still listed after dpkg -r $name"
  "$work/pc-consumer" >/dev/null || die "libopkit stopped working after dpkg -r $name"
  "$work/cmake-consumer/consumer" >/dev/null || die "libopkit stopped working after dpkg -r $name"
  say "dpkg -r $name: gone from opkit-info; libopkit and both programs still work"
done

# 4. Purge and check that nothing is left behind.
purge
trap 'rm -rf "$work"' EXIT
left=$(find /usr/include/opkit*.h "$libdir"/libopkit* "$libdir/opkit" "$libdir/cmake/opkit" \
            "$libdir/pkgconfig/opkit.pc" /usr/bin/opkit-* /usr/share/doc/libopkit* /usr/share/doc/opkit-* 2>/dev/null || true)
[ -z "$left" ] || die "left behind after purge: $left"
# Outputs are captured before grep -q: with pipefail, `cmd | grep -q` fails (or, negated,
# passes) when grep exits before cmd has written everything.
! grep -q libopkit.so.1 <<<"$(ldconfig -p)" || die "the loader cache still lists libopkit.so.1 after purge"
say "purged: no file and no loader cache entry left; ok ($((SECONDS - t0)) s)"
