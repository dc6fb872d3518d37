# Session 38, user sweep 30 (branch s38-sweep30): correctness on the GPU, no timings.  Every program of
# tileorch.testing.user_programs30 against its numpy reference on ragged shapes (NaN-filled outputs and tails):
# 14 attention-shaped / MLP programs on the chained-dots kernel (natural exp, causal three ways, a sliding window,
# ALiBi, a relative-bias tile, tanh soft-capping, GQA / MQA by index math, cross attention with an LSE at d128 in
# bf16, varlen through start / length arrays, d256 with f32 out, the 1-D row state, GEMM -> relu -> GEMM; the bf16
# ones run here with bf16 inputs, the CPU emulator ran their f16 twins), 10 GEMM epilogues on the TMA/WGMMA tier,
# the refused 3-D operand (mma.sync), 18 SIMT programs, and two programs at larger sizes against torch.
# Expect: every test passed (one line per failing test otherwise), well under 120 s with a warm machine.
# Output: $OUT/s38sweep30/sweep30_gpu.log (the full pytest output, failures in full).
# Run (carry .whl):  CMD="bash benchmarks/session38_sweep30.sh" bash benchmarks/device_session.sh shell
OUT=${OUT:-/tmp/out}; S="$OUT/s38sweep30"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout ${SWEEP30_TIMEOUT:-110} python3 -m pytest -q --tb=long -p no:cacheprovider -rfE -n 14 \
  tests/gpu/test_user_sweep30_gpu.py > "$S/sweep30_gpu.log" 2>&1
echo "[s38 sweep30] rc=$?"
grep -E "^(FAILED|ERROR)|passed|failed" "$S/sweep30_gpu.log" | tail -n 40 | sed 's/^/[s38 sweep30] /'
