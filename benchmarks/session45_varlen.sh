# Session 45, varlen attention on the chained tier (issue 20): Q, K, V gathered at start + positions under a row mask
# (cu_seqlens; a Triton port's pointer loads) loaded as row windows by TMA, the rows past a sequence's end zeroed in
# shared memory.  GPU tests vs torch fp32 per sequence with Inf / NaN in the unused rows (NaN-prefilled O):
# tests/gpu/test_varlen45_gpu.py; then a same-process timing vs torch SDPA (flash, cuDNN) on the padded batch and
# flash_attn's varlen function if installed (benchmarks/varlen45_timing.py).  < 120 s.
# Output: $OUT/s45varlen.tgz (timing JSON + logs).  Run (carry .whl): bash benchmarks/session45_varlen.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s45varlen"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | sed 's/^/[s45 varlen] /'
git rev-parse --short HEAD 2>/dev/null | sed 's/^/[s45 varlen] commit /'
T0=$(date +%s)
timeout ${TESTS_S:-55} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_varlen45_gpu.py \
  > "$S/gpu_tests.log" 2>&1
echo "[s45 varlen] tests rc=$? $(( $(date +%s) - T0 )) s: $(tail -n 1 "$S/gpu_tests.log")"
grep -E "^(FAILED|ERROR)" "$S/gpu_tests.log" | head -12 | cut -c1-300 | sed 's/^/[s45 varlen] /'
T1=$(date +%s)
[ "${TIMING_S:-55}" = 0 ] || timeout ${TIMING_S:-55} python3 benchmarks/varlen45_timing.py --out "$S/varlen_timing.json" \
  > "$S/varlen_timing.log" 2>&1
echo "[s45 varlen] timing rc=$? $(( $(date +%s) - T1 )) s"; grep -E "^\[s45 varlen\]" "$S/varlen_timing.log" | head -12
tail -n 5 "$S/varlen_timing.log" | grep -v "^\[s45" | cut -c1-300 | sed 's/^/[s45 varlen] timing tail: /'
tar czf "$OUT/s45varlen.tgz" -C "$OUT" s45varlen && rm -rf "$S"
