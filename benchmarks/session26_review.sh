# Review 26's GPU checks (repository root, compiler installed by device_session.sh shell; results under $OUT):
#   float -> integer conversions of NaN / +-inf / out of range from f16, f32, f64 to every width (the backend's
#   cvt.rzi mapping, the constants LLVM used to fold to poison), directed square roots: tests/gpu/test_review26_gpu.py
# Expect: all passed.  A failure of test_every_source_to_every_integer_width[float16] naming NaN means the H200's
# cvt.rzi from f16 does not give 0 for NaN (the lowering then needs the NaN select for f16 sources too).
# Run (carry .whl):  CMD="bash benchmarks/session26_review.sh" bash benchmarks/device_session.sh shell
S="$OUT/s26_review"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
timeout ${T1:-100} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 4 tests/gpu/test_review26_gpu.py \
  > "$S/tests.log" 2>&1
echo "[review26] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "^E .*(assert|Error)|(FAILED|ERROR) tests" "$S/tests.log" | head -20; tail -n 1 "$S/tests.log"
