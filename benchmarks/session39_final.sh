# Session 39's second device call (< 330 s): what the first could not run.
#   session39_fp8acc.sh   fp8 two-level accumulation (TILEORCH_FP8_PROMOTE_INTERVAL, default 1): sweep 29's fp8
#                         twins, long-K error beside torch._scaled_mm, 4096^3 e4m3 TFLOP/s, P = 0 / 1 / 2
#   head dims             tests/gpu/test_attnsweep36_gpu.py at the new default (TILEORCH_ATTN_HEAD_DIM_WIDTH=32:
#                         d80 / d96 programs launched on narrower arrays compile the narrowed variant)
#   session38_sweep30.sh  sweep 30's GPU twins (never run)
# Run (carry .whl):  CMD="bash benchmarks/session39_final.sh" TAIL=120 bash benchmarks/device_session.sh shell
T0=$(date +%s)
bash benchmarks/session39_fp8acc.sh
echo "[s39 final] fp8acc $(( $(date +%s) - T0 )) s"
mkdir -p "$OUT/s39headdim"
timeout ${HEADDIM_S:-100} python3 -m pytest -q -p no:cacheprovider -rfE --tb=short -n 8 tests/gpu/test_attnsweep36_gpu.py \
  > "$OUT/s39headdim/attnsweep36_gpu.log" 2>&1
echo "[s39 final] attnsweep36 GPU tests (head-dim default 32) rc=$?: $(tail -n 1 "$OUT/s39headdim/attnsweep36_gpu.log")"
grep -E "^(FAILED|ERROR)" "$OUT/s39headdim/attnsweep36_gpu.log" | head -10 | sed 's/^/[s39 final] /'
echo "[s39 final] headdim $(( $(date +%s) - T0 )) s"
(( $(date +%s) - T0 < ${FINAL_S:-300} - 110 )) && SWEEP30_TIMEOUT=100 bash benchmarks/session38_sweep30.sh
echo "[s39 final] sweep30 $(( $(date +%s) - T0 )) s"
cd "$OUT" && tar czf /tmp/s39final_all.tgz --exclude=shell.log . 2>/dev/null \
  && find . -mindepth 1 -maxdepth 1 ! -name shell.log -exec rm -rf {} + && mv /tmp/s39final_all.tgz "$OUT/"
ls "$OUT"
