# Session 26's third device call (all helper branches merged; repository root, compiler installed by
# device_session.sh shell; results under $OUT/s26_last): the GPU tests the second call did not reach (its attention
# file took the time) or that changed after it, in one pytest run (QUICK, 15 workers):
#   the persistent attention launch's CTA remark (18 failed: a second compile's empty remark; fixed 1b1cc30d),
#   review 26's conversions, sweep 19 (ftoi f64 NaN), register A / computed B (gamma staged by default), sweep 15 and
#   the memory-bound set under the online softmax per-thread form and one-element loads (s26-rowred), the cover
#   programs moved from sweeps 4 / 20
# Run (carry .whl):  CMD="bash benchmarks/session26_last.sh" bash benchmarks/device_session.sh shell
S="$OUT/s26_last"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
echo "=== tests ($(date -u +%T))"
timeout ${T1:-240} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 \
  tests/gpu/test_attention_programs.py::test_attention_snake_default_launch tests/gpu/test_review26_gpu.py \
  tests/gpu/test_user_sweep19_gpu.py tests/gpu/test_register_a_gpu.py tests/gpu/test_computed_b_gpu.py \
  tests/gpu/test_user_sweep15_gpu.py tests/gpu/test_memory_bound_gpu.py tests/gpu/test_user_sweep4_gpu.py::test_attn_short_no_loop \
  "tests/gpu/test_user_sweep20_gpu.py::test_emulated_case_on_the_gpu[attn_gqa_group_loop_inside]" \
  "tests/gpu/test_user_sweep20_gpu.py::test_on_the_gpu_against_numpy[test_gqa_heads_looped_around_the_key_loop]" \
  "tests/gpu/test_user_sweep20_gpu.py::test_on_the_gpu_against_numpy[test_attention_over_one_key_tile_stores_probabilities]" \
  > "$S/tests.log" 2>&1
echo "[tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -30; tail -n 1 "$S/tests.log"
grep -oE "(PASSED|FAILED) tests/gpu/[a-z0-9_]+\.py" "$S/tests.log" | sort | uniq -c
[ -f "$S/failures.log" ] && head -c 3000 "$S/failures.log"
echo "=== done ($(date -u +%T))"
