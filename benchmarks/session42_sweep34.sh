# Session 42, user sweep 34 (branch s42-sweep34): correctness on the GPU, no timings.
# tests/gpu/test_user_sweep34_gpu.py: every program of tileorch.testing.user_programs34 against its numpy reference on
# ragged shapes (NaN-filled outputs and tails; 10 chained attention programs, 20 tier GEMMs, 18 SIMT programs; the
# path each launch ran checked against the table) and two attention programs at size against torch (float64).
# New on the tier this session: gemm_mnk_all_ragged_f16 (an f32 dot of widened f16 tiles, now the f16 WGMMA) and the
# tf32 program whose reference is the WGMMA's truncated operands (gemm_f32_inputs_as_tf32).
# Expect: every test passed.
# Output: $OUT/s42sweep34/sweep34_gpu.log (full pytest output, failures in full) in s42sweep34_logs.tgz.
# Run (carry .whl):  CMD="bash benchmarks/session42_sweep34.sh" bash benchmarks/device_session.sh shell
OUT=${OUT:-/tmp/out}; S="$OUT/s42sweep34"; mkdir -p "$S"; T=$(mktemp -d)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
start=$(date +%s)
timeout ${SWEEP34_TIMEOUT:-140} python3 -m pytest -v --tb=long -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_user_sweep34_gpu.py > "$T/sweep34_gpu.log" 2>&1
rc=$?
echo "[s42 sweep34] sweep 34 twin rc=$rc (124: stopped at the time limit) $(( $(date +%s) - start )) s"
echo "[s42 sweep34] $(grep -c ' PASSED ' "$T/sweep34_gpu.log") passed, $(grep -c ' FAILED ' "$T/sweep34_gpu.log") failed, \
$(grep -c ' SKIPPED ' "$T/sweep34_gpu.log") skipped so far"
grep -E "^(FAILED|ERROR)|[0-9]+ passed|[0-9]+ failed" "$T/sweep34_gpu.log" | tail -n 40 | sed 's/^/[s42 sweep34] /'
grep -E "launch ran the (simt|gemm|chained) path" "$T/sweep34_gpu.log" | sort | uniq -c | head -n 20 \
  | sed 's/^/[s42 sweep34] launch path: /'
tar -C "$T" -czf "$S/s42sweep34_logs.tgz" sweep34_gpu.log
