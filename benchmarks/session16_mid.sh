# Session 16, mid-session device call (carry .whl; tileiras staged first): cuTile's f32 dot computed to
# f32 accuracy (3xTF32 on the SIMT path's mma.sync) against torch fp64, the tf32 programs still on the
# tier, and their speed beside tileiras (which computes an f32 dot in f32) and torch.matmul.
# Run: CMD="bash benchmarks/session16_mid.sh" bash benchmarks/device_session.sh shell
S="$OUT/s16mid"; mkdir -p "$S"
export TILEORCH_QUICK_GPU=1
timeout ${TEST_TIMEOUT:-300} python3 -m pytest -q -p no:cacheprovider -rfE -n 8 tests/gpu/test_user_sweep_gpu.py \
  tests/gpu/test_k_range_gpu.py tests/gpu/test_tier_programs.py tests/gpu/test_user_sweep7_gpu.py ${FILES:-} \
  -k "${K:-f32 or tf32 or fft}" 2>&1 | tee "$S/gpu_tests.log" | tail -n 20
timeout 240 python3 benchmarks/tile_programs.py --programs ${TP:-gemm_f32,gemm_tf32_n_major_b,linear_tf32} \
  --sizes ${TS:-4096x4096x4096,2048x2048x2048} --iters 10 --out "$S/tile" 2>&1 | tee "$S/tile_programs.log" | tail -n 14
${EXTRA:-true}
