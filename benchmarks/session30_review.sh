# Session 30's review GPU check (repository root, compiler installed by device_session.sh shell; results under
# $OUT/s30_review; < 60 s): tests/gpu/test_review30_gpu.py --
#   int8 x int8 dequantized with row / column scales and a bias, fp8 x fp8^T with scales and silu (the emulator's
#   WGMMA is f16 only); acc = ct.mma(a, b, acc) + a and a reset after K step 1 (the tier dropped the per-step math
#   before review 30; the SIMT path now), the chained MLP loop with + 1 / a reset after the second dot (the chained
#   kernel raced the WGMMA before; the SIMT path now); GEMM arrays whose shapes disagree (a wider A, a taller C, fewer Bs: the
#   launch runs them on the SIMT path with a warning, it raised ValueError before); GEMM operands as torch views
#   (A column slice at element 3, every other row of A, B transposed, C a column slice of a wider output).
# Expect: all passed (9 cases).
# Run (carry .whl):  CMD="bash benchmarks/session30_review.sh" bash benchmarks/device_session.sh shell
S="$OUT/s30_review"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
export TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
echo "=== tests ($(date -u +%T))"
timeout ${T1:-55} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_review30_gpu.py \
  > "$S/tests.log" 2>&1
echo "[tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -30; tail -n 1 "$S/tests.log"
grep -E "^E  " "$S/tests.log" | head -20
echo "=== done ($(date -u +%T))"
