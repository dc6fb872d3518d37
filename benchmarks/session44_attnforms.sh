# Session 44, attention forms the chained tier refused (issue 20): (a) a dot before the key loop reading sink keys /
# values of their own arrays (now the loop's first iteration, own tensor maps), (b) query rows gathered by a row-index
# vector (now read by the consumer warp groups into the swizzled Q tile, K/V by TMA).  GPU tests vs torch fp32
# (NaN-prefilled outputs): tests/gpu/test_attnforms44_gpu.py, the sink programs of sweeps 43 and 6; then a
# same-process timing vs torch SDPA (flash, cuDNN; with torch's gather / cat timed, and on contiguous inputs).  < 120 s.
# Output: $OUT/s44attnforms.tgz (timing JSON + logs).  Run (carry .whl): bash benchmarks/session44_attnforms.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s44attnforms"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | sed 's/^/[s44 attnforms] /'
git rev-parse --short HEAD 2>/dev/null | sed 's/^/[s44 attnforms] commit /'
T0=$(date +%s)
timeout ${TESTS_S:-55} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_attnforms44_gpu.py \
  tests/gpu/test_attnsweep43_gpu.py tests/gpu/test_user_sweep6_gpu.py -k "attnforms44 or routed or sink_block or learned_sink" \
  > "$S/gpu_tests.log" 2>&1
echo "[s44 attnforms] tests rc=$? $(( $(date +%s) - T0 )) s: $(tail -n 1 "$S/gpu_tests.log")"
grep -E "^(FAILED|ERROR)" "$S/gpu_tests.log" | head -12 | cut -c1-300 | sed 's/^/[s44 attnforms] /'
T1=$(date +%s)
[ "${TIMING_S:-55}" = 0 ] || timeout ${TIMING_S:-55} python3 benchmarks/attnforms44_timing.py --out "$S/attnforms_timing.json" \
  > "$S/attnforms_timing.log" 2>&1
echo "[s44 attnforms] timing rc=$? $(( $(date +%s) - T1 )) s"; grep -E "^\[s44 attnforms\]" "$S/attnforms_timing.log" | head -12
tail -n 5 "$S/attnforms_timing.log" | grep -v "^\[s44" | cut -c1-300 | sed 's/^/[s44 attnforms] timing tail: /'
tar czf "$OUT/s44attnforms.tgz" -C "$OUT" s44attnforms && rm -rf "$S"
