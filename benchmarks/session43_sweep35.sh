# Session 43, user sweep 35 (branch s43-sweep35): correctness on the GPU, no timings.
# tests/gpu/test_user_sweep35_gpu.py: every program of tileorch.testing.user_programs35 (cuTile programs in the
# spelling of cuTile's published samples) against its numpy reference on ragged shapes (NaN-filled outputs and tails;
# 7 chained attention programs, 14 tier GEMMs, 19 SIMT programs; the path each launch ran checked against the table)
# and two programs at size against torch (float64): the FMHA sample's kernel (GQA, causal, Dqk 128 / Dv 64, 1000
# tokens) and split-K by atomics (1000 x 500 x 4096, 4 splits).
# Expect: every test passed.
# Output: $OUT/s43sweep35/sweep35_gpu.log (full pytest output, failures in full) in s43sweep35_logs.tgz.
# Run (carry .whl):  CMD="bash benchmarks/session43_sweep35.sh" bash benchmarks/device_session.sh shell
OUT=${OUT:-/tmp/out}; S="$OUT/s43sweep35"; mkdir -p "$S"; T=$(mktemp -d)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
start=$(date +%s)
timeout ${SWEEP35_TIMEOUT:-140} python3 -m pytest -v --tb=long -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_user_sweep35_gpu.py > "$T/sweep35_gpu.log" 2>&1
rc=$?
echo "[s43 sweep35] sweep 35 twin rc=$rc (124: stopped at the time limit) $(( $(date +%s) - start )) s"
echo "[s43 sweep35] $(grep -c ' PASSED ' "$T/sweep35_gpu.log") passed, $(grep -c ' FAILED ' "$T/sweep35_gpu.log") failed, \
$(grep -c ' SKIPPED ' "$T/sweep35_gpu.log") skipped so far"
grep -E "^(FAILED|ERROR)|[0-9]+ passed|[0-9]+ failed" "$T/sweep35_gpu.log" | tail -n 40 | sed 's/^/[s43 sweep35] /'
grep -E "launch ran the (simt|gemm|chained) path" "$T/sweep35_gpu.log" | sort | uniq -c | head -n 20 \
  | sed 's/^/[s43 sweep35] launch path: /'
tar -C "$T" -czf "$S/s43sweep35_logs.tgz" sweep35_gpu.log
