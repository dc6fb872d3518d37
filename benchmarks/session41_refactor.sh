#!/usr/bin/env bash
# Session 41, s41-refactor: the launcher's spill-free retile of C-reading GEMMs (new GPU test), the retile / fp8
# promotion GPU tests it touches, and sweeps 26 / 30's GPU twins (their every-program check now path-independent).
# Run from the repo root on the device (compiler installed); < 150 s; results in $OUT/s41refactor/ (one .tgz).
OUT=${OUT:-/tmp/out}
D="$OUT/s41refactor"
mkdir -p "$D"
run() {  # name, timeout, pytest args...
  local name=$1 t=$2; shift 2
  timeout "$t" python3 -m pytest -q -s --tb=short -p no:cacheprovider -rfE "$@" > "$D/$name.log" 2>&1
  echo "[s41 refactor] $name rc=$? $(tail -n 1 "$D/$name.log")"
  grep -E "^\[s41 refactor\]|^FAILED|^ERROR" "$D/$name.log" | sed "s/^\[s41 refactor\] /[s41 refactor]   /; s/^FAILED/[s41 refactor]   FAILED/; s/^ERROR/[s41 refactor]   ERROR/"
}
run spill 40 -n 0 tests/gpu/test_retile_spill_gpu.py
run retile 60 -n 8 tests/gpu/test_retile192_gpu.py tests/gpu/test_fp8_promotion_gpu.py
run twins 45 -n 8 tests/gpu/test_user_sweep26_gpu.py tests/gpu/test_user_sweep30_gpu.py -k "every_program or grid_axis2 or unit_middle"
tar czf "$OUT/s41refactor.tgz" -C "$OUT" s41refactor && rm -rf "$D"
