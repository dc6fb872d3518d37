# Session 44, user sweep 36 (branch s44-sweep36): correctness on the GPU, no timings.
# tests/gpu/test_user_sweep36_gpu.py: every program of tileorch.testing.user_programs36 (kernels of LLM stacks in
# cuTile: scaled-mm, gated pairs, grouped GEMM, split-K workspace, decode GEMVs in 16-row tiles, RoPE at position
# ids, KV-cache append, quantize / amax, cross-entropy, top-k, AdamW ...) against its numpy reference on ragged shapes
# (NaN-filled outputs and tails; 16 tier GEMMs, 23 SIMT programs of which 2 refused dots; the path each launch ran
# checked against the table) and two programs at size against torch (float64): a 13-row decode GEMV (16-row tile on
# the tier, 11008 x 4096 weight) and the fp8 scaled-mm (1000 x 1000 x 2048).
# Expect: every test passed.
# Output: $OUT/s44sweep36/s44sweep36_logs.tgz (sweep36_gpu.log: full pytest output, failures in full).
# Run (carry .whl):  bash benchmarks/session44_sweep36.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s44sweep36"; mkdir -p "$S"; T=$(mktemp -d)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
start=$(date +%s)
timeout ${SWEEP36_TIMEOUT:-140} python3 -m pytest -v --tb=long -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_user_sweep36_gpu.py > "$T/sweep36_gpu.log" 2>&1
rc=$?
echo "[s44 sweep36] sweep 36 twin rc=$rc (124: stopped at the time limit) $(( $(date +%s) - start )) s"
echo "[s44 sweep36] $(grep -c ' PASSED ' "$T/sweep36_gpu.log") passed, $(grep -c ' FAILED ' "$T/sweep36_gpu.log") failed, \
$(grep -c ' SKIPPED ' "$T/sweep36_gpu.log") skipped so far"
grep -E "^(FAILED|ERROR)|[0-9]+ passed|[0-9]+ failed" "$T/sweep36_gpu.log" | tail -n 40 | sed 's/^/[s44 sweep36] /'
grep -E "launch ran the (simt|gemm|chained) path" "$T/sweep36_gpu.log" | sort | uniq -c | head -n 20 \
  | sed 's/^/[s44 sweep36] launch path: /'
tar -C "$T" -czf "$S/s44sweep36_logs.tgz" sweep36_gpu.log
