#!/usr/bin/env bash
# Session 41, the lead's mid-session GPU call (main after merging s41-kvec, s41-refactor, s41-sweep33): each helper's
# script in turn (each < 150 s, each writes its own .tgz under $OUT).  Run (carry .whl):
#   CMD="bash benchmarks/session41_mid.sh" bash benchmarks/device_session.sh shell
for s in kvec refactor sweep33; do
  t0=$(date +%s)
  bash "benchmarks/session41_$s.sh" 2>&1 | grep -E "^\[s41 " | cut -c1-400
  echo "[s41 mid] $s done in $(( $(date +%s) - t0 )) s"
done
