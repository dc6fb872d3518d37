# s33-kahead's GPU check (< 240 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session33_kahead.sh" bash benchmarks/device_session.sh shell   -> $OUT/s33kahead.tgz
# TILEORCH_ATTN_K_AHEAD (tile j+1's K prologue -- the q-k RMSNorm of K, in place in its ring stage -- issued while
# tile j's first dot runs; session 32: z32_qk_rmsnorm 198.3 -> 222.5 TFLOP/s on an H100).  Session 33 made
# `tileorch check` prove its pipelines (extract_chained reads the loop's two full waits) and, if this A/B still shows
# the gain, turns it on by default.  Every arm sets the switch explicitly (=0 / =1), so the run means the same
# whatever the branch's default is.
#   1. same process (benchmarks/session33_kahead.py): z32_qk_rmsnorm ka0, ka1, ka0, ka1 (beside SDPA flash), then the
#      textbook-shaped zoo control z32_keys_last_tile_first under both (no K prologue: k_ahead_remark False both);
#   2. the textbook kernel d64 / d128 x 1k / 4k, non-causal, ka0 / ka1 / ka0 again in one process
#      (attention_variants.py; K_AHEAD does not apply: equal within the ka0 pair's spread);
#   3. the q-k norm GPU tests (zoo 32 and user sweep 6: NaN-prefilled, torch fp32 reference) under K_AHEAD=0 and =1.
# Expected: q-k norm ka1 above both ka0 runs by more than their spread (~+10%), k_ahead_remark True only for ka1 on
# q-k norm; control lines equal within noise; tests pass under both.
S="$OUT/s33kahead"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
timeout ${ZOO_TIMEOUT:-90} python3 benchmarks/session33_kahead.py --iters 20 2> "$S/zoo.jsonl" | tee "$S/zoo.log"
echo "[zoo A/B] rc=${PIPESTATUS[0]}"
timeout ${TEXTBOOK_TIMEOUT:-80} python3 benchmarks/attention_variants.py --dims 64,128 --seqs 1024,4096 --causal no \
  --tiles 128x128 --iters 20 --variants "ka0:TILEORCH_ATTN_K_AHEAD=0;ka1:TILEORCH_ATTN_K_AHEAD=1;ka0b:TILEORCH_ATTN_K_AHEAD=0" \
  --out "$S/textbook" > "$S/textbook.log" 2>&1
echo "[textbook control] rc=$?"; grep -A8 "^   d " "$S/textbook.log" || tail -n 5 "$S/textbook.log"
for ka in 0 1; do
  TILEORCH_ATTN_K_AHEAD=$ka timeout ${TEST_TIMEOUT:-30} python3 -m pytest -q -p no:cacheprovider -rfE -n 4 \
    tests/gpu/test_attnzoo32_gpu.py tests/gpu/test_user_sweep6_gpu.py -k "qk_rmsnorm or qk_norm" > "$S/tests_ka$ka.log" 2>&1
  echo "[q-k norm GPU tests, TILEORCH_ATTN_K_AHEAD=$ka] rc=$?"; tail -n 1 "$S/tests_ka$ka.log"
done
tar czf "$OUT/s33kahead.tgz" -C "$OUT" s33kahead
