# Session 40, user sweep 32 (branch s40-sweep32): correctness on the GPU, no timings.  Every program of
# tileorch.testing.user_programs32 against its numpy reference on ragged shapes (NaN-filled outputs and tails): 28
# two-dot programs on the chained-dots kernel (ALiBi slopes by exp2 of the head, a relative bias tile, sliding windows
# by loop bounds and by where, softcapping by tanh and by hand (bf16), GQA by h * HKV // H and h % HKV, cross-
# attention with per-batch key lengths, varlen by .item(), prefix-LM, bottom-right causal, a per-row output scale, the
# LSE in [B, H, S], a bool key-padding mask, a data-dependent sparse mask, V stored [BH, D, S], f16 scores with a bf16
# P @ V (and bf16 with f16), bf16 <-> f16 Q conversions -- new on the chained kernel this session --, MLP chains), 22
# GEMMs on the TMA/WGMMA tier (fp8 out saturated, e4m3 with scales, s8 x u8, W8A8 requantised, tf32 by astype, order /
# permute transposes, batch on grid axis 1 / 2, while / num_tiles / element-stepped K loops, a peeled first K tile, C
# += A B and alpha A B + beta C in place, check_bounds=False), 4 refused dots (mma.sync), 23 SIMT programs, and two
# programs at larger sizes against torch.
# Expect: every test passed (one line per failing test otherwise), well under 120 s with a warm machine.
# Output: $OUT/s40sweep32/sweep32_gpu.log (the full pytest output, failures in full).
# Run (carry .whl):  CMD="bash benchmarks/session40_sweep32.sh" bash benchmarks/device_session.sh shell
OUT=${OUT:-/tmp/out}; S="$OUT/s40sweep32"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout ${SWEEP32_TIMEOUT:-110} python3 -m pytest -q --tb=long -p no:cacheprovider -rfE -n 14 \
  tests/gpu/test_user_sweep32_gpu.py > "$S/sweep32_gpu.log" 2>&1
echo "[s40 sweep32] rc=$?"
grep -E "^(FAILED|ERROR)|passed|failed" "$S/sweep32_gpu.log" | tail -n 40 | sed 's/^/[s40 sweep32] /'
