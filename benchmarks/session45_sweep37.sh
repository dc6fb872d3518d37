# Session 45, user sweep 37 (branch s45-sweep37): correctness on the GPU, no timings.
# tests/gpu/test_user_sweep37_gpu.py: every program of tileorch.testing.user_programs37 (attention-shaped and two-dot
# cuTile programs: the cuTile samples' forward with a query offset / GQA / K by order at head dims 32-256, causal in
# two loops, reversed query tiles, K stored transposed, cross attention with key lengths, decode with the GQA group
# in the tile and 1 / 3 / 16 query rows, ALiBi, T5 bias, a bf16 bias tensor, softcap, local / sink windows, dropout
# keep mask, key padding vector, max + LSE outputs, bf16 O + f32 LSE, d_qk 192 / d_v 128; MLP / gated-MLP chains,
# an epilogue dot on a 1-D grid (new on the GEMM tier this session), low-rank chain, batched two-dot, GEMM + softmax,
# LM-head LSE, row sums over N tiles) against its float64 numpy reference on ragged shapes (NaN-filled outputs and
# tails; the path each launch ran checked against the table: 42 chained, 5 GEMM tier, 3 SIMT after a located
# refusal), the samples' forward against torch SDPA (fp32), and one at size (2 x 8 x 2048, d128, causal, bf16).
# Expect: every test passed.
# Output: $OUT/s45sweep37/s45sweep37_logs.tgz (sweep37_gpu.log: full pytest output, failures in full).
# Run (carry .whl):  bash benchmarks/session45_sweep37.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s45sweep37"; mkdir -p "$S"; T=$(mktemp -d)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
start=$(date +%s)
timeout ${SWEEP37_TIMEOUT:-140} python3 -m pytest -v --tb=long -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_user_sweep37_gpu.py > "$T/sweep37_gpu.log" 2>&1
rc=$?
echo "[s45 sweep37] sweep 37 twin rc=$rc (124: stopped at the time limit) $(( $(date +%s) - start )) s"
echo "[s45 sweep37] $(grep -c ' PASSED ' "$T/sweep37_gpu.log") passed, $(grep -c ' FAILED ' "$T/sweep37_gpu.log") failed, \
$(grep -c ' SKIPPED ' "$T/sweep37_gpu.log") skipped so far"
grep -E "^(FAILED|ERROR)|[0-9]+ passed|[0-9]+ failed" "$T/sweep37_gpu.log" | tail -n 40 | sed 's/^/[s45 sweep37] /'
grep -E "launch ran the (simt|gemm|chained) path" "$T/sweep37_gpu.log" | sort | uniq -c | head -n 20 \
  | sed 's/^/[s45 sweep37] launch path: /'
tar -C "$T" -czf "$S/s45sweep37_logs.tgz" sweep37_gpu.log
