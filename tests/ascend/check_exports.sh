#!/usr/bin/env bash
# check_exports.sh SYMBOLS_TOOL MANIFEST — every fake CANN library of the emulator exports
# exactly the symbols the vendor declares for its kind (ascend_emu_symbols KIND): none
# missing (a declared function the emulator forgot), none extra (a call the vendor could
# make without declaring it).
set -euo pipefail
tool=$1 manifest=$2
status=0 count=0
while read -r lib kind; do
  [ -n "$lib" ] || continue
  want=$("$tool" "$kind" | sort)
  got=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TWi]$/ {print $3}' | sed 's/@.*//' | sort)
  if [ "$want" != "$got" ]; then
    echo "FAIL: $lib ($kind) exports differ from the declared subset:"
    diff <(echo "$want") <(echo "$got") | sed 's/^/  /' || true
    status=1
  else
    echo "ok: $lib ($kind): $(echo -n "$want" | grep -c . || true) symbols"
  fi
  count=$((count + 1))
done < "$manifest"
[ "$count" -gt 0 ] || { echo "FAIL: empty manifest $manifest"; status=1; }
exit $status
