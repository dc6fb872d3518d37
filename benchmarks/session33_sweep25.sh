# Session 33, user sweep 25 (branch s33-sweep25): correctness on the GPU, no timings.  Every program of
# tileorch.testing.user_programs25 against its numpy reference on ragged shapes (NaN-filled outputs and tails):
# 25 tier GEMMs (K not a multiple of the tile, transposed / permuted / column-major operands, 3-D and batched
# tiles, fp8 e4m3 / e5m2, int8 -> int32, f16 accumulator, epilogue vectors, bias + GELU + residual, user split-K
# by atomics, a dot under an `if`, two dots summed, an argument K bound, 16 / 256 tiles, C = aAB + bC in place,
# tril / dequant epilogues), the GEMV and the
# one-column product the tier refuses (mma.sync), 32 SIMT programs (reductions, integer math, conversions,
# control flow, atomics of every kind, padding modes, 1-D / 2-D / 3-D grids, 4000 programs), and three GEMMs at
# larger sizes against torch.  Expect: every test passed (one line per failing test otherwise), well under 240 s.
# Run (carry .whl):  bash benchmarks/session33_sweep25.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s33sweep25"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout 220 python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_user_sweep25_gpu.py \
  > "$S/sweep25_gpu.log" 2>&1
echo "[sweep25 gpu] rc=$?"; grep -E "^(FAILED|ERROR)|passed|failed" "$S/sweep25_gpu.log" | tail -n 40
