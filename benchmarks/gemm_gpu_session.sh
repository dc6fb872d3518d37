#!/usr/bin/env bash
# The GEMM's GPU session (run on the device machine from the repository root; compiles nothing:
# cubins come prebuilt in build/gemm_cache, carried with the call).  Logs and results go to $OUT.
#   bash benchmarks/gemm_gpu_session.sh [tests] [sanitize] [bench]
set -u -o pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export TILEORCH_CACHE_DIR=$PWD/build/gemm_cache PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
STEPS=${*:-tests sanitize bench}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"
for step in $STEPS; do
  case $step in
    tests)
      timeout 400 python3 -m pytest -q -p no:cacheprovider -rfE tests/gpu/test_gemm.py 2>&1 | tee "$OUT/gemm_tests.log" | tail -n 12 ;;
    sanitize)
      for tool in racecheck synccheck memcheck; do
        echo "== compute-sanitizer --tool $tool" | tee -a "$OUT/sanitizer.log"
        timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 9 python3 benchmarks/gemm_small.py persistent streamk >>"$OUT/sanitizer.log" 2>&1
        echo "exit=$?" | tee -a "$OUT/sanitizer.log"
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|WRONG|ok$" "$OUT/sanitizer.log" | tail -n 3
      done ;;
    bench)
      timeout 500 python3 benchmarks/gemm.py run --variants persistent,streamk,persistent_n128,dp --out "$OUT" 2>&1 | tee "$OUT/bench.log" | grep -v "^ \|^{\|^}" | tail -n 24 ;;
  esac
done
