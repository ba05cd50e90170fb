#!/usr/bin/env bash
# Session 2026-11-29 (eleventh), device call 3: ce_stash_cluster again with the
# asynchronous variant (cp.async of a block's whole part at once, the next row's packs
# issued as the gradient pass frees their slots) and aligned-only packs at V = 50257.
set -u
R=$(mktemp -d)
t() { local name=$1; shift; local t0=$SECONDS; "$@" > $R/$name.txt 2>&1; echo "$name rc $? $((SECONDS-t0)) s" | tee -a $R/times.txt; }
t stash build-gpu/devrun/ce_stash_cluster
tar czf $OUT/r3.tgz -C $R .
