# Session 43, attention-shaped sweep (branch s43-attnsweep, issue 20): correctness on the GPU, no timings.
# tests/gpu/test_attnsweep43_gpu.py: every program of tileorch.testing.attnsweep43_programs (ALiBi, softcap, additive
# bias tiles, GQA / MQA, O in [B, S, H, D], window + causal, prefix-LM, penalty masks, natural LSE, Q pre-scaled,
# gpt-oss sinks, split-KV decode, paged chunked prefill, varlen; head dims 64-256, f16 / bf16) against its float64
# numpy reference on ragged shapes (NaN-filled outputs and tails; 26 chained, the LSE stored by ct.scatter among them
# (new: tileas-scatter-row-store), 2 SIMT with located refusals; the path each launch ran checked against the table),
# a few against torch SDPA (fp32) too.
# Expect: every test passed.
# Output: $OUT/s43attnsweep/s43attnsweep_logs.tgz (full pytest output, failures in full).
# Run (carry .whl):  bash benchmarks/session43_attnsweep.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s43attnsweep"; mkdir -p "$S"; T=$(mktemp -d)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/[s43 attnsweep] /'
git rev-parse --short HEAD 2>/dev/null | sed 's/^/[s43 attnsweep] commit /'
start=$(date +%s)
timeout ${ATTNSWEEP_TIMEOUT:-110} python3 -m pytest -v --tb=long -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_attnsweep43_gpu.py > "$T/attnsweep43_gpu.log" 2>&1
rc=$?
echo "[s43 attnsweep] rc=$rc (124: stopped at the time limit) $(( $(date +%s) - start )) s"
echo "[s43 attnsweep] $(grep -c ' PASSED ' "$T/attnsweep43_gpu.log") passed, \
$(grep -c ' FAILED ' "$T/attnsweep43_gpu.log") failed, $(grep -c ' SKIPPED ' "$T/attnsweep43_gpu.log") skipped"
grep -E "^(FAILED|ERROR)|[0-9]+ passed|[0-9]+ failed" "$T/attnsweep43_gpu.log" | tail -n 30 | cut -c1-300 \
  | sed 's/^/[s43 attnsweep] /'
tar -C "$T" -czf "$S/s43attnsweep_logs.tgz" attnsweep43_gpu.log
