#!/usr/bin/env bash
# check_vendor_guide.sh DOC SKELETON WORK — runs docs/vendor-guide.md's commands, each of
# which must appear verbatim as a line of one of the guide's ```sh blocks, on the guide's
# vendor (examples/vendor_skeleton) built outside opkit's tree against an installed opkit:
# the one in /usr (libopkit-dev), or the prefix in $CMAKE_PREFIX_PATH (cmake reads it
# from the environment, so the commands stay exactly as printed). opkit's tools must be on
# PATH. The installed vendor is removed again at the end.
set -euo pipefail
doc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
skeleton=$(cd "$2" && pwd)
work=$3
say() { echo "check_vendor_guide: $*"; }
die() { echo "check_vendor_guide: FAIL: $*" >&2; exit 1; }
unset OPKIT_VENDOR_PATH OPKIT_VENDORS OPKIT_VENDORS_DISABLE

doc_lines=$(sed -n '/^```sh$/,/^```$/p' "$doc")
out=""
run() {  # run COMMAND: the guide must print it; run it in the vendor's directory
  grep -Fxq -- "$1" <<<"$doc_lines" || die "docs/vendor-guide.md does not show the command: $1"
  out=$(eval "$1" 2>&1) || { echo "$out"; die "the guide's command failed: $1"; }
}

# §2's CMake text is the skeleton's own, from find_package on.
diff <(sed -n '/^```cmake$/,/^```$/p' "$doc" | sed '1d;$d') \
     <(sed -n '/^find_package(opkit/,$p' "$skeleton/CMakeLists.txt") >/dev/null ||
  die "docs/vendor-guide.md's CMake block differs from examples/vendor_skeleton/CMakeLists.txt"

rm -rf "$work" && mkdir -p "$work" && cp -r "$skeleton" "$work/mychip"
cd "$work/mychip"

# §2 Build.
run 'cmake -S . -B build'
run 'cmake --build build'
[ -f build/libopkit_vendor_mychip.so ] || die "the guide's build made no libopkit_vendor_mychip.so"
dyn=$(readelf -d build/libopkit_vendor_mychip.so)  # captured: see check_install_tree.sh
! grep -q "NEEDED.*libopkit" <<<"$dyn" || die "the vendor links libopkit"
say "built libopkit_vendor_mychip.so out of tree (find_package(opkit), no link to libopkit)"

# §3 Test before you ship.
run 'OPKIT_VENDOR_PATH=$PWD/build opkit-info'
grep -Eq "^  mychip +READY " <<<"$out" || { echo "$out"; die "opkit-info does not show mychip READY"; }
grep -Eq "^  axpy +mychip" <<<"$out" || { echo "$out"; die "opkit-info does not show mychip serving axpy"; }
say "opkit-info: mychip READY, serving axpy"
run 'opkit-conformance $PWD/build/libopkit_vendor_mychip.so'
grep -q "^CONFORMS: " <<<"$out" || { echo "$out"; die "opkit-conformance did not say CONFORMS"; }
say "opkit-conformance: $(grep '^CONFORMS: ' <<<"$out")"
run 'opkit-bench --vendor-path $PWD/build --device cpu --group small'
grep -Eq "^axpy" <<<"$out" || { echo "$out"; die "opkit-bench printed no axpy row"; }
say "opkit-bench ran with the vendor"

# §4 Ship: install into libopkit's own vendor directory; found with no variable set.
run 'cmake --install build'
installed=$(sed -n 's/^-- Install\(ing\)*: //p' <<<"$out" | grep 'libopkit_vendor_mychip\.so$' | head -1)
[ -n "$installed" ] && [ -f "$installed" ] || { echo "$out"; die "cmake --install put the vendor nowhere"; }
trap 'rm -f "$installed"' EXIT
[ "$(stat -c %a "$installed")" = 644 ] || die "installed with mode $(stat -c %a "$installed"), not 0644"
run 'opkit-info'
grep -Eq "^  mychip +READY " <<<"$out" || { echo "$out"; die "the installed vendor is not found without OPKIT_VENDOR_PATH"; }
say "cmake --install: $installed (0644), found by opkit-info with no variable set"
say "ok"
