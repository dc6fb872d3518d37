# Session 32, user sweep 23 (branch s32-sweep23): correctness on the GPU, no timings.  Every program of
# tileorch.testing.user_programs23 against its numpy reference on ragged shapes (NaN-filled outputs and tails),
# the Gram matrix on the WGMMA tier, four kernels against torch at larger sizes (masked softmax NaN rows, histc
# at 1M, argmax ties, f64 logsumexp) and the new f64 exp / exp2 / log / log2 within 2 ulp (f64_math.py).
# Expect: every test passed (one line per failing test otherwise), well under 240 s.
# Run (carry .whl):  bash benchmarks/session32_sweep23.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s32sweep23"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout 200 python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_user_sweep23_gpu.py \
  > "$S/sweep23_gpu.log" 2>&1
echo "[sweep23 gpu] rc=$?"; grep -E "^(FAILED|ERROR)|passed|failed" "$S/sweep23_gpu.log" | tail -n 40
