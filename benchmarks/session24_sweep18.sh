# s24-sweep18's GPU check (< 150 s): user sweep 18 against torch fp32 / numpy float64 (NaN-prefilled), and the
# grouped GEMMs this branch moved onto tensor cores (W[bid(2)] beside 2-D X and Y: sweep 11's
# grouped_equal_groups_bid2, sweep 14's grouped_experts_bid2_offsets_aligned; sweep 18's
# grouped_offsets_empty_groups is in its emulated cases) and the epilogues gathering per element (sweep 11's T5
# bucket bias, sweep 5's row scale through a permutation).
# Run from the repository root with the compiler installed (as benchmarks/session23_gpu.sh: carry .whl), e.g.
#   CMD="bash benchmarks/session24_sweep18.sh" bash benchmarks/device_session.sh shell
# Writes $OUT/s24_sweep18/gpu_tests.log; prints the pass count and the failures.  Expected: every test passes
# (the emulated cases on the GPU, the bf16 / fp8 GEMMs, the bf16 attention, the SIMT fallbacks).
S="$OUT/s24_sweep18"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
FILES="tests/gpu/test_user_sweep18_gpu.py
  tests/gpu/test_user_sweep11_gpu.py::test_equal_groups_by_bid2
  tests/gpu/test_user_sweep14_gpu.py::test_grouped_experts_bid2_offsets_aligned
  tests/gpu/test_user_sweep11_gpu.py::test_t5_bucket_bias
  tests/gpu/test_user_sweep5_gpu.py::test_mm_epilogue_row_gather"
timeout ${TEST_TIMEOUT:-140} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n ${WORKERS:-12} $FILES \
  > "$S/gpu_tests.log" 2>&1
echo "sweep18 tests rc=$?"; grep -cE " PASSED" "$S/gpu_tests.log"; grep -E " FAILED| ERROR" "$S/gpu_tests.log" | head -40
tail -n 2 "$S/gpu_tests.log"; [ -f "$S/failures.log" ] && head -c 3000 "$S/failures.log"
exit 0
