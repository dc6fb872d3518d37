# Session 27's review GPU check (repository root, compiler installed by device_session.sh shell; results under
# $OUT/s27_review; < 60 s): tests/gpu/test_review27_gpu.py --
#   the PTX emulator's edge cases against the GPU bit for bit (max/min of signed zeros and NaN in f16/f32/f64,
#   setp.ne/neu with NaN, shifts past the width incl. shl.b16 by >= 2^16, MIN / -1, and division by zero, whose value
#   the PTX ISA leaves unspecified: a failure there means the emulator's pinned value is not the machine's);
#   review 27's integer programs (division by a folded / constant / loaded zero, MIN // -1, unsigned cdiv near the
#   largest value, shifts past the width, unsigned max/min, chains, bitcast, ragged arange, wrapping reductions,
#   maximum of +-0, float % exact in f64) launched by tileorch.cutile.launch against the same numpy references as on
#   the emulator; sweep 2's float % / // against torch (its remainder now computed in f64).
# Expect: all passed (about 90 cases, 2 skipped: no max.NaN.f64).
# Run (carry .whl):  CMD="bash benchmarks/session27_review.sh" bash benchmarks/device_session.sh shell
S="$OUT/s27_review"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
export TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
echo "=== tests ($(date -u +%T))"
timeout ${T1:-55} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_review27_gpu.py \
  tests/gpu/test_user_sweep2_gpu.py::test_float_mod_floordiv > "$S/tests.log" 2>&1
echo "[tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -30; tail -n 1 "$S/tests.log"
grep -E "^E  " "$S/tests.log" | head -20
echo "=== done ($(date -u +%T))"
