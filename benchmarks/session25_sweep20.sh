# s25-sweep20's GPU check (< 120 s): user sweep 20 (tests/gpu/test_user_sweep20_gpu.py) on the GPU against
# numpy float64 (NaN-prefilled outputs, tails checked): every tensor-core program's emulated case (f16, bf16,
# tf32 and int8 GEMMs and attention, the K loop under a runtime if with the flag 1 and 0, split-K by atomics,
# paged KV, dK / dV, the int8 C requantised in the epilogue) and the refused programs' SIMT-interpreter references
# (mma.sync on the GPU); and sweeps 8 / 16's int8-requantising GEMMs, which this branch moved onto the tier (an
# i8 C: the direct epilogue's 2-byte stores of low bytes).
# Run from the repository root with the compiler installed (as benchmarks/session24_sweep18.sh: carry .whl), e.g.
#   CMD="bash benchmarks/session25_sweep20.sh" bash benchmarks/device_session.sh shell
# Writes $OUT/s25_sweep20/gpu_tests.log; prints the pass count and the failures.  Expected: every test passes.
S="$OUT/s25_sweep20"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
timeout ${TEST_TIMEOUT:-110} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n ${WORKERS:-12} \
  tests/gpu/test_user_sweep20_gpu.py tests/gpu/test_user_sweep8_gpu.py::test_mm_int8_requant_epilogue \
  tests/gpu/test_user_sweep16_gpu.py::test_i8_requant_row_col > "$S/gpu_tests.log" 2>&1
echo "sweep20 tests rc=$?"; grep -cE " PASSED" "$S/gpu_tests.log"; grep -E " FAILED| ERROR" "$S/gpu_tests.log" | head -40
tail -n 2 "$S/gpu_tests.log"; [ -f "$S/failures.log" ] && head -c 3000 "$S/failures.log"
exit 0
