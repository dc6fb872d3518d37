#!/usr/bin/env bash
# One batched GPU session (run on the device machine from the repository root; compiles nothing:
# the cubins come prebuilt in build/gpu/, carried with the call).  Writes logs and results to $OUT.
#   benchmarks/gpu_session.sh probe   runtime tests, reference streaming sweep, sanitizer check
#   benchmarks/gpu_session.sh full    + conformance suite, tileorch streaming sweep, sanitizers
set -u -o pipefail
MODE=${1:-full}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
PY=python3
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  $PY -c "import cuda.bindings, torch, numpy; print('cuda-bindings', cuda.bindings.__version__, 'torch', torch.__version__, 'numpy', numpy.__version__)"
  command -v compute-sanitizer ptxas ncu
} 2>&1 | tee "$OUT/device.txt"

run_pytest() {  # name, pytest args...
  local name=$1; shift
  timeout 400 $PY -m pytest -q -p no:cacheprovider -rfEs "$@" 2>&1 | tee "$OUT/$name.log" | tail -n 25
}

sanitize() {  # seconds, tool, command...  (full report appended to $OUT/sanitizer.log)
  local limit=$1 tool=$2; shift 2
  echo "== compute-sanitizer --tool $tool $*" | tee -a "$OUT/sanitizer.log"
  timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" >>"$OUT/sanitizer.log" 2>&1
  echo "exit=$?" | tee -a "$OUT/sanitizer.log"
  grep -E "SUMMARY|cases exact|: exact|MISMATCH" "$OUT/sanitizer.log" | tail -n 2
}

run_pytest runtime tests/gpu/test_runtime_gpu.py tests/gpu/test_debug_timeout_gpu.py
if [ "$MODE" = full ]; then
  run_pytest conformance tests/gpu/test_conformance.py -p no:benchmark -n 8 --max-worker-restart=100 \
    --junitxml="$OUT/conformance.xml"
fi
timeout 300 $PY benchmarks/stream_pipeline.py run --out "$OUT" 2>&1 | tail -n 60
{
  for tool in racecheck synccheck; do
    if [ "$MODE" = full ]; then
      sanitize 60 $tool $PY benchmarks/stream_pipeline.py check tileorch_s4_t16k_wg1
      sanitize 150 $tool $PY tests/gpu/conformance.py run --subset sanitize
    else
      sanitize 60 $tool $PY benchmarks/stream_pipeline.py check ref_s4_t16k_wg1
    fi
  done
} 2>&1
if [ "$MODE" = full ]; then
  $PY benchmarks/conformance_report.py "$OUT/conformance.xml" "$OUT/device.txt" "$OUT/sanitizer.log" \
    > "$OUT/conformance.md" && head -n 20 "$OUT/conformance.md"
fi
