# Session 40, final GPU call (after the last merges): the GPU tests of every file this session's changes reach
# (unit-middle 3-D GEMM operands and their review fixes, sweep 32, the fp8 promotion fix and the retile, sweeps
# whose programs moved from SIMT to the tensor cores: 6, 26, 30, review 30) and the mid3d timing; < 300 s.
# Output: $OUT/s40final.tgz (the pytest log in full, the timing JSON).
# Run (carry .whl):  CMD="bash benchmarks/session40_final.sh" bash benchmarks/device_session.sh shell
OUT=${OUT:-/tmp/out}; S="$OUT/s40final"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | sed 's/^/[s40 final] /'
git rev-parse --short HEAD 2>/dev/null | sed 's/^/[s40 final] commit /'
T0=$(date +%s)
timeout ${TESTS_S:-200} python3 -m pytest -q --tb=long -p no:cacheprovider -rfE -n 14 tests/gpu/test_mid3d_gpu.py \
  tests/gpu/test_user_sweep32_gpu.py tests/gpu/test_fp8_promotion_gpu.py tests/gpu/test_retile192_gpu.py \
  tests/gpu/test_user_sweep30_gpu.py tests/gpu/test_review30_gpu.py tests/gpu/test_user_sweep6_gpu.py \
  tests/gpu/test_user_sweep26_gpu.py > "$S/gpu_tests.log" 2>&1
echo "[s40 final] tests rc=$? $(( $(date +%s) - T0 )) s: $(tail -n 1 "$S/gpu_tests.log")"
grep -E "^(FAILED|ERROR)" "$S/gpu_tests.log" | head -20 | cut -c1-300 | sed 's/^/[s40 final] /'
timeout ${TIMING_S:-60} python3 benchmarks/mid3d_timing.py --out "$S/mid3d_timing.json" > "$S/mid3d_timing.log" 2>&1
echo "[s40 final] mid3d timing rc=$?"; grep -E "^\[s40 mid3d\]" "$S/mid3d_timing.log" | head -6
tar czf "$OUT/s40final.tgz" -C "$OUT" s40final && rm -rf "$S"
