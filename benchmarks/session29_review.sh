# Session 29's review GPU check (repository root, compiler installed by device_session.sh shell; results under
# $OUT/s29_review; < 60 s): tests/gpu/test_review29_gpu.py --
#   dot programs the PTX emulator's runner cannot run (N = 5 and N = 1 through the launcher's padded C, K = 0 with an
#   epilogue operand, int8 with a tanh epilogue, an int32 accumulator stored as bf16 past 2^24 -- exact one rounding),
#   the programs the tier now takes (rows on program id 1 with one column tile; a block-diagonal product into a C
#   narrower than B), 4 matrices per program, ct.mma(a, b, acc * 0.5) (refused by the tier since review 29: the SIMT
#   path must give the decayed sum);
#   conversions to bf16 of int32 / int64 / uint32 / uint64 / f64 rounded once (cvt.rz.f32 + the inexact bit: what the
#   emulator assumes of cvt.rz.f32.{s,u}{32,64} / .f64 is checked here), int32 -> e4m3, astype between six types;
#   math edges the emulator models (atan2 at zeros / infinities / NaN, pow at -0 / -inf / 1, bitcast of a bf16 NaN,
#   sin / tan of -0, sinh / cosh near the f32 maximum).
# Expect: all passed (25 cases).  (K = 0 with an epilogue operand read transposed: tests/gpu/test_first_hour_gpu.py
# covers K = 0 with a bias epilogue on the GEMM kernel; this one adds a transposed epilogue operand.)
# Run (carry .whl):  CMD="bash benchmarks/session29_review.sh" bash benchmarks/device_session.sh shell
S="$OUT/s29_review"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
export TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
echo "=== tests ($(date -u +%T))"
timeout ${T1:-55} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_review29_gpu.py \
  > "$S/tests.log" 2>&1
echo "[tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -30; tail -n 1 "$S/tests.log"
grep -E "^E  " "$S/tests.log" | head -20
echo "=== done ($(date -u +%T))"
