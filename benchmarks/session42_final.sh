# Session 42, the lead's second GPU call: sweep 34's twin (benchmarks/session42_sweep34.sh) and the GPU tests that
# failed in the first full tests/gpu run (fixed in a508de5d: K = 0's SIMT launch, sweep 26's broadcast B on the tier,
# sweep 6's strided transposed views, attention_programs4's not-launched programs) with the launch-path twins of
# s42-launchpath (strided batches, broadcast B).  < 280 s.  Run (carry .whl):
#   CMD="bash benchmarks/session42_final.sh" bash benchmarks/device_session.sh shell
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/s42final"
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
SWEEP34_TIMEOUT=130 bash benchmarks/session42_sweep34.sh
start=$(date +%s)
timeout ${FIXED_TIMEOUT:-120} python3 -m pytest -q --tb=long -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_review29_gpu.py tests/gpu/test_attention_programs4.py tests/gpu/test_user_sweep26_gpu.py \
  tests/gpu/test_user_sweep6_gpu.py tests/gpu/test_user_sweep28_gpu.py tests/gpu/test_user_sweep31_gpu.py \
  > "$OUT/s42final/fixed_gpu.log" 2>&1
echo "[s42 final] fixed files rc=$? $(( $(date +%s) - start )) s: $(tail -n 1 "$OUT/s42final/fixed_gpu.log")"
grep -E "^(FAILED|ERROR)" "$OUT/s42final/fixed_gpu.log" | head -20 | cut -c1-300 | sed 's/^/[s42 final] /'
