# Session 28's review GPU check (repository root, compiler installed by device_session.sh shell; results under
# $OUT/s28_review; < 60 s): tests/gpu/test_review28_gpu.py --
#   the tensor-core programs the PTX emulator cannot run (tf32 dot of f32 loads, e4m3 x e4m3 with a scaled f16
#   epilogue, int8 x int8 dequantized per row and column, uint8 x int8 exact) through tileorch.cutile.launch against
#   numpy float64 / exact int64 references, outputs NaN-prefilled;
#   review 28's SIMT programs with the emulator swapped for the GPU: unsigned '//' (was refused), loops whose counter's
#   increment passes the int32 / int64 maximum (never ended before review 28; range(MAX - 1, MAX, MAX) ran none), the
#   cluster split on and off, int8 abs / wrapping products, saturating float -> integer conversions, u64 -> float,
#   argmin with NaN, maximum with and without NaN propagation.
# Expect: all passed (about 60 cases).  A failure in the loop cases with a hang is the kill by timeout (rc 124).
# Run (carry .whl):  CMD="bash benchmarks/session28_review.sh" bash benchmarks/device_session.sh shell
S="$OUT/s28_review"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
export TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
echo "=== tests ($(date -u +%T))"
timeout ${T1:-55} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_review28_gpu.py \
  > "$S/tests.log" 2>&1
echo "[tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -30; tail -n 1 "$S/tests.log"
grep -E "^E  " "$S/tests.log" | head -20
echo "=== done ($(date -u +%T))"
