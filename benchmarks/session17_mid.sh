# Session 17, mid-session device call (carry .whl): GPU tests of the branches merged by 12:15 (sweep 9, computed
# A and per-channel/per-group B vectors on the GEMM tier, the chained kernel's session-17 switches, invalid-input
# and compile fixes) and the regressions they could cause (tier zoo, attention programs, sweeps 7/8, K ranges).
# Run: CMD="bash benchmarks/session17_mid.sh" bash benchmarks/device_session.sh shell ; then the attention probe
# (CMD="bash benchmarks/session17_attn_probe.sh").
S="$OUT/s17mid"; mkdir -p "$S"
export TILEORCH_QUICK_GPU=1
timeout ${TEST_TIMEOUT:-480} python3 -m pytest -q -p no:cacheprovider -rfE -n 15 ${FILES:-tests/gpu/test_user_sweep9_gpu.py \
  tests/gpu/test_computed_b_gpu.py tests/gpu/test_tier_programs.py tests/gpu/test_attention_programs.py \
  tests/gpu/test_user_sweep8_gpu.py tests/gpu/test_user_sweep7_gpu.py tests/gpu/test_k_range_gpu.py \
  tests/gpu/test_attention_programs2.py} 2>&1 | tee "$S/gpu_tests.log" | tail -n 30
tar czf "$OUT/s17mid.tgz" -C "$OUT" s17mid
