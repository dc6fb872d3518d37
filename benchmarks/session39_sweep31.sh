# Session 39, user sweep 31 (branch s39-sweep31): correctness on the GPU, no timings.  Every program of
# tileorch.testing.user_programs31 against its numpy reference on ragged shapes (NaN-filled outputs and tails):
# 17 attention-shaped / MLP programs on the chained-dots kernel (K stored [B, H, D, S], the max folded as
# max(maximum(s, m)), causal by -1e9 / broadcast_to index tiles / zeroed probabilities, Q scaled before the loop,
# 1 / l, a natural-log LSE, head dims 32 / 128 / 256 (bf16), 77 queries x 45 keys, 128 x 128 tiles, a GELU MLP
# chain in bf16; the bf16
# ones here with bf16 inputs, the CPU emulator ran their f16 twins), 15 GEMMs on the TMA/WGMMA tier (one with a
# strided batch view, which only the GPU runs on the tier), the 3 refused dots (mma.sync), 18 SIMT programs, and two
# programs at larger sizes against torch.
# Expect: every test passed (one line per failing test otherwise), well under 120 s with a warm machine.
# Output: $OUT/s39sweep31/sweep31_gpu.log (the full pytest output, failures in full).
# Run (carry .whl):  CMD="bash benchmarks/session39_sweep31.sh" bash benchmarks/device_session.sh shell
OUT=${OUT:-/tmp/out}; S="$OUT/s39sweep31"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout ${SWEEP31_TIMEOUT:-110} python3 -m pytest -q --tb=long -p no:cacheprovider -rfE -n 14 \
  tests/gpu/test_user_sweep31_gpu.py > "$S/sweep31_gpu.log" 2>&1
echo "[s39 sweep31] rc=$?"
grep -E "^(FAILED|ERROR)|passed|failed" "$S/sweep31_gpu.log" | tail -n 40 | sed 's/^/[s39 sweep31] /'
