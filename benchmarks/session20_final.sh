# Session 20's last device call (~2 minutes of budget left): GPU tests of the merged branches that
# change default paths: C column slices and views on dots sharing A (s20-views), sweep 12 (s20-mem),
# sweep 11's column-slice store, operand views; the attention GPU tests' folded helpers (s20-invalid D1).
# Run: CMD="bash benchmarks/session20_final.sh" bash benchmarks/device_session.sh shell   (carry .whl)
S="$OUT/s20_final"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
timeout ${TEST_TIMEOUT:-75} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 \
  tests/gpu/test_column_views_gpu.py tests/gpu/test_operand_views_gpu.py tests/gpu/test_user_sweep12_gpu.py \
  tests/gpu/test_user_sweep11_gpu.py::test_store_into_column_slice \
  "tests/gpu/test_attention_programs.py::test_attention_on_tensor_cores" > "$S/gpu_tests.log" 2>&1
echo "tests rc=$?"; grep -cE " PASSED" "$S/gpu_tests.log"; grep -E " FAILED| ERROR" "$S/gpu_tests.log" | head -20; tail -n 2 "$S/gpu_tests.log"
[ -f "$S/failures.log" ] && head -c 3000 "$S/failures.log"
tar czf "$OUT/s20_final.tgz" -C "$OUT" s20_final
