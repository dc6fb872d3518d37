# s29-gemm2's GPU check (< 120 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session29_gemm2.sh" bash benchmarks/device_session.sh shell
# The forms the tier took this session, with the session's new defaults exported:
#  1. tileas-column-loop-to-tiles: an MLP block written as two loops (the second over Y's column tiles reading the K
#     loop's result) runs as the dot on the K loop's result looping over column tiles (GemmConfig.epi_loop); before:
#     refused at the second loop, SIMT path (mma.sync).  Rows: mlp_gelu (f16, hidden 128), mlp_silu_bt (bf16,
#     nn.Linear weights).
#  2. the K loop's own trip count (range(nk), a scalar) beside that second dot; before: refused.  Row: mlp_scalar_k.
#  3. own_a_scale_after_the_loop (the rewrite the computed-A-beside-a-loaded-A refusal names).  Row: scale_after.
# Expected: GPU tests all pass (tests/gpu/test_cover29_gpu.py, and cover27's two_k_loops_second_reads_first case);
# rows with tileorch_kind=gemm and rel_err ~1e-3 (f16) / ~5e-3 (bf16); the speed beside torch is not yet measured.
# Writes $OUT/s29_gemm2/{cover29.json,cover29.log,gpu_tests.log}; prints one line per program and the test summary.
S="$OUT/s29_gemm2"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
export TILEORCH_PAIR_STAGES=1 TILEORCH_ATTN_CTAS_PER_SM=2 TILEORCH_SIMT_PREDICATED_TAILS=1 \
  TILEORCH_REMATERIALIZE_FLOAT_LOADS=1 TILEORCH_ATOMIC_FENCES=holders
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$S/device.txt"
timeout ${TEST_TIMEOUT:-40} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-8} tests/gpu/test_cover29_gpu.py \
  "tests/gpu/test_cover27_gpu.py::test_emulated_case_on_the_gpu[two_k_loops_second_reads_first]" \
  > "$S/gpu_tests.log" 2>&1
echo "GPU tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
timeout ${BENCH_TIMEOUT:-70} python3 benchmarks/cover29.py --no-simt --iters 10 --out "$S/cover29.json" \
  > "$S/cover29.log" 2>&1
echo "cover29 rc=$?"
grep -E "^(mlp_|scale_after)" "$S/cover29.log" | while read -r line; do
  echo "$line" | tr ' ' '\n' | grep -E '^(mlp_|scale_after|tileorch_kind|tileorch_ms|torch_ms|vs_torch|tileorch_tflops|tileorch_rel_err)' | tr '\n' ' '; echo
done
exit 0
