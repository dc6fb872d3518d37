# Session 37, user sweep 29 (branch s37-sweep29): correctness on the GPU, no timings.  Every program of
# tileorch.testing.user_programs29 against its numpy reference on ragged shapes (NaN-filled outputs and tails):
# the tier's GEMMs (fp8 e4m3 / e5m2 with per-tensor scales from 1-element / 0-d arrays and per-row scales -- the CPU
# emulator does not model fp8 WGMMA, so the GPU is their only run --, int8 -> int32 with a ragged K, int8 with
# row / column dequantization, a rounding-shift requantization, a saturating astype(int8), floordiv / mod epilogues,
# uint8 x int8, tf32 by ct.matmul, B through ct.transpose, A through order=, a MoE GEMM of expert offsets, split-K by
# atomics, a residual with a scaled e4m3 output, an e5m2 output, a full-N softmax with masked columns, row tiles of
# 16 / 32, K = 72, two outputs, a row max beside C), the dots the tier refuses with a located reason (3-D operand
# tiles with a unit middle dim, two K tiles a step by hand, int8 ct.matmul whose products cuTile wraps to int8:
# mma.sync), the SIMT programs (scans along each axis, axis-0 reductions, where chains, int // and % by runtime
# scalars, int32 / uint32 / int64 bit ops, float -> int conversions, bf16 <-> fp8 round trips, four outputs of four
# dtypes, 0-d scalars, nested loops, data-dependent while loops), and three programs at larger sizes against torch.
# Expect: every test passed (one line per failing test otherwise), well under 240 s.
# Run (carry .whl):  bash benchmarks/session37_sweep29.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s37sweep29"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout ${SWEEP29_TIMEOUT:-150} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 14 tests/gpu/test_user_sweep29_gpu.py \
  > "$S/sweep29_gpu.log" 2>&1
echo "[sweep29 gpu] rc=$?"; grep -E "^(FAILED|ERROR)|passed|failed" "$S/sweep29_gpu.log" | tail -n 40
