# Session 30's device calls, grouped so each stays under the 600 s per-call limit (every step bounded by timeouts).
#   part A: user grids on the GEMM path (session30_grid.sh, <= 110 s), REMATERIALIZE_FLOAT_LOADS=1 as the default
#           (session30_remat.sh, <= 110 s), the shared-memory row cache A/B (session30_rowlong.sh), the auto GEMM
#           rule with 192-wide tiles beside its columns (session30_gemm_suite.sh, <= 60 s)
#   part B: the one GEMM consumer body as the default (session30_consumer.sh, <= 120 s), attention variants
#           (session30_attnzoo.sh), review 30 (session30_review.sh)
# Each script says what it should show.
# Run (carry .whl):  CMD="bash benchmarks/session30_gpu_calls.sh A" bash benchmarks/device_session.sh shell
set -u
case "${1:-}" in
  A) parts="grid remat rowlong gemm_suite"; export VARIANTS=${VARIANTS:-persistent,streamk,persistent_n192} ;;
  B) parts="consumer attnzoo review" ;;
  C) echo "##### gemm + zoo GPU tests ($(date -u +%T))"
     timeout 120 python3 -m pytest -q -p no:cacheprovider -rfE -n 8 tests/gpu/test_gemm.py tests/gpu/test_attnzoo30_gpu.py 2>&1 | tail -n 12
     parts="retile192" ;;
  *) parts="$*" ;;
esac
for p in $parts; do
  [ -f "benchmarks/session30_$p.sh" ] || { echo "##### session30_$p.sh missing"; continue; }
  echo "##### session30_$p.sh ($(date -u +%T))"
  timeout ${PART_TIMEOUT:-170} bash "benchmarks/session30_$p.sh"
  echo "##### session30_$p.sh rc=$?"
done
# part C (after the first two calls): tests/gpu/test_gemm.py (the 192-wide auto tile with a row-major B crashed there:
# fixed by s30-retile192), the two attention-zoo tests whose fixture unpacked four arrays, the retile to 192 of cuTile
# GEMM programs (session30_retile192.sh)
