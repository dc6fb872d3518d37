# s23-sweep16's GPU check (< 150 s): user sweep 16 against torch fp32 (NaN-prefilled), and the launches this
# branch moved onto tensor cores: sweep 14's [B, H, M, K] @ [H, K, N] (bmm_4d_a_per_head_b, per-operand batch
# counts in the tensor maps) and the operand-view programs whose B index is computed / read from memory.
# Run from the repository root with the compiler installed (as benchmarks/session23_gpu.sh: carry .whl), e.g.
#   CMD="bash benchmarks/session23_sweep16.sh" bash benchmarks/device_session.sh shell
# Writes $OUT/s23_sweep16/gpu_tests.log; prints the pass count and the failures.
S="$OUT/s23_sweep16"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
FILES="tests/gpu/test_user_sweep16_gpu.py
  tests/gpu/test_user_sweep14_gpu.py::test_emulated_case_on_the_gpu
  tests/gpu/test_operand_views_gpu.py::test_indices_the_host_cannot_compute_run_as_batch_indices_per_work_tile"
timeout ${TEST_TIMEOUT:-140} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n ${WORKERS:-12} $FILES \
  > "$S/gpu_tests.log" 2>&1
echo "sweep16 tests rc=$?"; grep -cE " PASSED" "$S/gpu_tests.log"; grep -E " FAILED| ERROR" "$S/gpu_tests.log" | head -40
tail -n 2 "$S/gpu_tests.log"; [ -f "$S/failures.log" ] && head -c 3000 "$S/failures.log"
exit 0
