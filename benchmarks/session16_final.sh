# Session 16 final device call (carry .whl; tileiras staged first): GPU tests of what this session changed
# (f32 dots to f32 accuracy, computed dot operands on the GEMM tier, attention set 2 and 1/2/4-row decode
# tiles, sweep 8, invalid-input checks, the poison-reuse guard's changed PTX) and regressions, then speed:
# the textbook attention (issue 20's shapes), attention set 2, the W8A16 / f32 / tf32 zoo programs, all
# beside tileiras in the same process.
# Run: CMD="bash benchmarks/session16_final.sh" bash benchmarks/device_session.sh shell
S="$OUT/s16final"; mkdir -p "$S"
export TILEORCH_QUICK_GPU=1
timeout ${TEST_TIMEOUT:-420} python3 -m pytest -q -p no:cacheprovider -rfE -n 15 ${FILES:-tests/gpu/test_user_sweep8_gpu.py \
  tests/gpu/test_attention_programs2.py tests/gpu/test_computed_b_gpu.py tests/gpu/test_attention_programs.py \
  tests/gpu/test_user_sweep7_gpu.py tests/gpu/test_user_sweep6_gpu.py tests/gpu/test_user_sweep5_gpu.py \
  tests/gpu/test_user_sweep_gpu.py tests/gpu/test_user_sweep2_gpu.py tests/gpu/test_k_range_gpu.py \
  tests/gpu/test_gemm.py tests/gpu/test_tier_programs.py tests/gpu/test_conformance.py tests/gpu/test_memory_bound_gpu.py \
  tests/gpu/test_tier_column_reductions.py tests/gpu/test_cutile_gpu.py} 2>&1 | tee "$S/gpu_tests.log" | tail -n 30
[ -n "${SKIP_BENCH:-}" ] && exit 0
timeout 200 python3 benchmarks/attention.py --dims 64,128 --seqs 1024,4096 --causal both --iters 10 \
  --out "$S/attention" 2>&1 | tee "$S/attention.log" | tail -n 12
timeout 200 python3 benchmarks/attention.py --set2 ${SET2:-all} --iters 10 --out "$S/attention_set2" 2>&1 \
  | tee "$S/attention_set2.log" | tail -n 16
timeout 200 python3 benchmarks/tile_programs.py --programs ${TP:-linear_w8a16_f16,gemm_w8a16_f16,gemm_f32,gemm_f16,linear_gelu_bf16} \
  --sizes ${TS:-4096x4096x4096} --iters 10 --out "$S/tile" 2>&1 | tee "$S/tile_programs.log" | tail -n 10
${EXTRA:-true}
