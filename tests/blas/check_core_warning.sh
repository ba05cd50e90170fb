#!/usr/bin/env bash
# check_core_warning.sh OPKIT_INFO — OpenBLAS forced onto its generic Prescott kernels
# (OPENBLAS_CORETYPE=Prescott, what DYNAMIC_ARCH falls back to on a CPU model it does not
# know) on a CPU with AVX2: the blas vendor must say so, and what to set, in its detail.
# Exit 77 (skipped) without OpenBLAS or without AVX2; then there is nothing to warn about.
set -uo pipefail
info=$1
grep -qw avx2 /proc/cpuinfo || { echo "SKIPPED: this CPU has no AVX2"; exit 77; }
out=$(OPENBLAS_CORETYPE=Prescott "$info" 2>&1)
line=$(printf '%s\n' "$out" | grep -A2 '^  blas ')
printf '%s\n' "$line"
printf '%s\n' "$line" | grep -q 'OpenBLAS' || { echo "SKIPPED: the blas vendor found no OpenBLAS"; exit 77; }
if printf '%s\n' "$line" | grep -q 'generic Prescott kernels.*set OPENBLAS_CORETYPE='; then
  echo "ok: the detail names the slow kernels and the setting"
else
  echo "FAIL: no warning about the generic kernels in the vendor's detail"; exit 1
fi
out=$("$info" 2>&1)
if printf '%s\n' "$out" | grep -A2 '^  blas ' | grep -q 'OPENBLAS_CORETYPE='; then
  if printf '%s\n' "$out" | grep -q 'Prescott MAX_THREADS'; then
    echo "ok: without the override OpenBLAS picked Prescott here too, and the warning says so"
  else
    echo "FAIL: a warning although OpenBLAS picked a tuned core"; exit 1
  fi
fi
