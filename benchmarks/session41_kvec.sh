# Session 41, K-indexed vectors TMA-loaded by the producer (tileas/k_vector_tma.py): a same-process A/B timing at
# 4096^3 (TMA vs the consumers' global loads, TILEORCH_COMPUTED_OPERAND=global_k_vectors; register A too for
# rmsnorm_gamma; tileiras and torch beside) and the GPU tests of computed operands; < 150 s.
# Output: $OUT/s41kvec.tgz (the timing JSON and log, the pytest log).  Run (carry .whl): bash benchmarks/session41_kvec.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s41kvec"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | sed 's/^/[s41 kvec] /'
git rev-parse --short HEAD 2>/dev/null | sed 's/^/[s41 kvec] commit /'
T0=$(date +%s)
timeout ${TIMING_S:-70} python3 benchmarks/kvec_timing.py --out "$S/kvec_timing.json" > "$S/kvec_timing.log" 2>&1
echo "[s41 kvec] timing rc=$? $(( $(date +%s) - T0 )) s"; grep -E "^\[s41 kvec\]" "$S/kvec_timing.log" | head -12
tail -n 5 "$S/kvec_timing.log" | grep -v "^\[s41" | cut -c1-300 | sed 's/^/[s41 kvec] timing tail: /'
T1=$(date +%s)
timeout ${TESTS_S:-70} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_k_vector_tma_gpu.py \
  tests/gpu/test_computed_b_gpu.py tests/gpu/test_register_a_gpu.py tests/gpu/test_computed_operand_prefetch_gpu.py \
  > "$S/gpu_tests.log" 2>&1
echo "[s41 kvec] tests rc=$? $(( $(date +%s) - T1 )) s: $(tail -n 1 "$S/gpu_tests.log")"
grep -E "^(FAILED|ERROR)" "$S/gpu_tests.log" | head -12 | cut -c1-300 | sed 's/^/[s41 kvec] /'
tar czf "$OUT/s41kvec.tgz" -C "$OUT" s41kvec && rm -rf "$S"
