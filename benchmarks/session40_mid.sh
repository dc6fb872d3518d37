# Session 40, mid-session GPU call: the helpers' scripts (3-D unit-middle GEMM operands, user sweep 32) and the
# fp8 promotion fix's GPU tests, in one call (< 300 s); everything in $OUT/s40mid.tgz.
# Run (carry .whl):  CMD="bash benchmarks/session40_mid.sh" bash benchmarks/device_session.sh shell
OUT=${OUT:-/tmp/out}
bash benchmarks/session40_mid3d.sh
bash benchmarks/session40_sweep32.sh
mkdir -p "$OUT/s40fix"
timeout ${FIX_S:-90} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_fp8_promotion_gpu.py \
  > "$OUT/s40fix/fp8_promotion_gpu.log" 2>&1
echo "[s40 fix] fp8 promotion rc=$? $(tail -n 1 "$OUT/s40fix/fp8_promotion_gpu.log")"
grep -E "\[s39 fp8acc\]|^FAILED" "$OUT/s40fix/fp8_promotion_gpu.log" | sed 's/^/[s40 fix] /'
tar czf "$OUT/s40mid.tgz" -C "$OUT" $(cd "$OUT" && ls -d s40mid3d.tgz s40sweep32 s40fix 2>/dev/null) && \
  rm -rf "$OUT/s40mid3d.tgz" "$OUT/s40sweep32" "$OUT/s40fix"
