#!/usr/bin/env bash
# check_linkage.sh LIB PREFIX — LIB may depend at link time only on the C/C++ runtime
# (checked on `ldd` and the DT_NEEDED entries), and may export only symbols starting
# with PREFIX (checked with `nm -D`), and must not need static TLS (DF_STATIC_TLS), which
# would make a late dlopen — Python's ctypes, Julia, Rust — fail with "cannot allocate
# memory in static TLS block".
set -euo pipefail
lib=$1 prefix=$2
allowed='^(libc|libm|libstdc\+\+|libgcc_s|libdl|libpthread|librt|ld-linux-x86-64|ld-linux-aarch64|linux-vdso)\.so'
status=0
echo "== $lib"
echo "-- ldd:"
ldd "$lib"
while read -r needed; do
  if ! [[ $needed =~ $allowed ]]; then
    echo "FAIL: $lib needs $needed, which is not part of the C/C++ runtime"
    status=1
  fi
done < <(readelf -d "$lib" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
while read -r name; do
  [[ $name == ${prefix}* ]] && continue
  echo "FAIL: $lib exports $name, which does not start with $prefix"
  status=1
done < <(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDRBVWuiG]$/ {print $3}' | sed 's/@.*//' | grep -v '^OPKIT_1$' || true)
# Captured first: with pipefail, a `readelf | grep -q` that matches early can fail on
# SIGPIPE and read as "no match".
if grep -q 'STATIC_TLS' <<<"$(readelf -d "$lib")"; then
  echo "FAIL: $lib uses initial-exec TLS (DF_STATIC_TLS); it cannot be dlopened late"
  status=1
fi
count=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -c "^${prefix}" || true)
echo "-- exports $count ${prefix}* symbols"
[ "$count" -gt 0 ] || { echo "FAIL: no ${prefix}* symbol exported"; status=1; }
exit $status
