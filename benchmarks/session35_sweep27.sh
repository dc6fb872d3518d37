# Session 35, user sweep 27 (branch s35-sweep27): correctness on the GPU, no timings.  Every program of
# tileorch.testing.user_programs27 against its numpy reference on ragged shapes (NaN-filled outputs and tails):
# the tier's GEMMs (a persistent GEMM grouped from pid, split-K by atomics, K = 104 / 100, M = 7, N = 5, int8 ->
# int32, fp8 with row / column scales, a 4-D bmm with a broadcast batch, residual and bool-mask epilogues, an early
# return, IndexedWithInt64 operands, a 3 x 5 grid), the GEMM with a ct.assert_ (SIMT path after a located
# warning), the SIMT programs (layernorm backward, seeded dropout, softmax over dim 0 / 1, top-k with int64 ids,
# cross entropy, segment sums, stencils, max pooling, int64 gathers / atomics / arithmetic, bool tiles, tiles of 1
# and 2, early returns), and three GEMMs at larger sizes against torch.
# Expect: every test passed (one line per failing test otherwise), well under 240 s.
# Run (carry .whl):  bash benchmarks/session35_sweep27.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s35sweep27"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout 220 python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_user_sweep27_gpu.py \
  > "$S/sweep27_gpu.log" 2>&1
echo "[sweep27 gpu] rc=$?"; grep -E "^(FAILED|ERROR)|passed|failed" "$S/sweep27_gpu.log" | tail -n 40
