# Session 43, the lead's last GPU call: the fixed launch-path script (timings), then every file of tests/gpu
# (-n 15, stopped at ${ALL_TIMEOUT:-450} s; fp8 attention, sweep 35, attnsweep 43 and the launcher's GPU tests among them).  Run (carry .whl):
#   CMD="bash benchmarks/session43_final.sh" TAIL=80 bash benchmarks/device_session.sh shell
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/s43final"
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
bash benchmarks/session43_launch.sh
start=$(date +%s)
timeout ${ALL_TIMEOUT:-450} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 15 tests/gpu \
  > "$OUT/s43final/gpu_tests.log" 2>&1
echo "[s43 final] tests/gpu rc=$? $(( $(date +%s) - start )) s: $(tail -n 1 "$OUT/s43final/gpu_tests.log")"
grep -E "^(FAILED|ERROR)" "$OUT/s43final/gpu_tests.log" | head -30 | cut -c1-300 | sed 's/^/[s43 final] /'
xz -9 "$OUT/s43final/gpu_tests.log"
