#!/usr/bin/env bash
# ABI check of libopkit.so.1 against the checked-in baseline tests/abi/libopkit.so.1.abi.
# Builds libopkit with debug info in ./build-abi (or $OPKIT_ABI_BUILD_DIR), describes its
# ABI with abidw (libabigail, Debian's abigail-tools) restricted to the public headers in
# include/, and compares it with the baseline using abidiff:
#   an incompatible change (a removed or changed function, a changed struct layout or
#   enum value, ...)                         fails (abidiff's ABI_INCOMPATIBLE_CHANGE bit);
#   a compatible change (an added function)  passes, and is printed: update the baseline
#                                            in the same commit;
#   no change                                passes.
#
#   scripts/ci-abi.sh            check
#   scripts/ci-abi.sh --update   rewrite tests/abi/libopkit.so.1.abi from this tree (after
#                                a deliberate, compatible addition to include/opkit.h)
#
# The baseline is written with paths and source locations left out, so it does not depend
# on where the tree was built; it does depend on the compiler (GCC of Debian 12) that
# produced the debug info.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${OPKIT_ABI_BUILD_DIR:-build-abi}
baseline=tests/abi/libopkit.so.1.abi
update=0
case "${1:-}" in
  --update) update=1 ;;
  "") ;;
  *) echo "usage: $0 [--update]" >&2; exit 2 ;;
esac
command -v abidw >/dev/null || { echo "abidw not found: run scripts/install-deps.sh (abigail-tools)" >&2; exit 2; }

start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPKIT_BUILD_TESTS=OFF \
  -DOPKIT_BUILD_TOOLS=OFF -DOPKIT_BUILD_EXAMPLES=OFF -DOPKIT_BUILD_BENCHMARKS=OFF \
  -DOPKIT_VENDOR_CUDA=OFF >/dev/null
cmake --build "$build" -j"${OPKIT_JOBS:-2}" --target opkit
echo "== abi build: $(($(date +%s) - start)) s"

lib=$build/lib/libopkit.so.1
current=$build/libopkit.so.1.abi
# Only what the exported opkit_* functions reach, only types of include/, no locations;
# translation-unit paths relative to the tree.
abidw --exported-interfaces-only --headers-dir include --drop-private-types --no-corpus-path \
  --no-comp-dir-path --no-show-locs --type-id-style hash --out-file "$current" "$lib"
sed -i "s|path='$PWD/|path='|" "$current"

if ((update)); then
  mkdir -p "$(dirname "$baseline")"
  cp "$current" "$baseline"
  echo "== wrote $baseline ($(grep -c '<elf-symbol ' "$baseline") exported symbols): commit it"
  exit 0
fi

set +e
abidiff --no-show-locs "$baseline" "$current" >"$build/abidiff.txt"
rc=$?
set -e
cat "$build/abidiff.txt"
echo "== abidiff exit status $rc"
# abidiff's exit status is a bit field: 1 error, 2 usage error, 4 ABI change,
# 8 incompatible ABI change. libabigail sets 8 only for removed symbols; a changed
# parameter type or struct layout is reported with 4 alone. So any change that is not a
# pure addition fails too: the summaries must count 0 Removed and 0 Changed.
if ((rc & 3)); then
  echo "== abidiff failed (exit $rc)" >&2
  exit 1
elif ((rc & 8)) || grep -E 'summary:.*\b[1-9][0-9]* (Removed|Changed)' "$build/abidiff.txt" >/dev/null; then
  echo "== INCOMPATIBLE ABI change against $baseline (see above). Within a major version" \
       "functions are only added; a changed function gets a _v2 name. A struct that grows at" \
       "its end under the struct_size rule shows as a changed function: when that is" \
       "deliberate, run scripts/ci-abi.sh --update and commit $baseline with it." >&2
  exit 1
elif ((rc & 4)); then
  echo "== compatible ABI change (additions only): run scripts/ci-abi.sh --update and commit $baseline"
else
  echo "== ABI unchanged against $baseline"
fi
