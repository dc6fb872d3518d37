# Session 15 final device call (carry .whl): GPU tests of what this session changed (computed batch indices,
# static_iter re-rolling, the attention forms lifted onto the chained tier, sweep 7) and regressions
# (sweeps 4-6, attention programs, tier zoo QUICK).
# Run: CMD="bash benchmarks/session15_final.sh" bash benchmarks/device_session.sh shell
S="$OUT/s15final"; mkdir -p "$S"
export TILEORCH_QUICK_GPU=1
timeout ${TEST_TIMEOUT:-480} python3 -m pytest -q -p no:cacheprovider -rfE -n 15 ${FILES:-tests/gpu/test_user_sweep7_gpu.py \
  tests/gpu/test_static_iter_gpu.py tests/gpu/test_user_sweep6_gpu.py tests/gpu/test_user_sweep5_gpu.py \
  tests/gpu/test_user_sweep4_gpu.py tests/gpu/test_attention_programs.py tests/gpu/test_tier_programs.py} 2>&1 \
  | tee "$S/gpu_tests.log" | tail -n 30
