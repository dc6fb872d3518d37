#!/usr/bin/env bash
# Session 39 (branch s39-fp8acc): two-level fp8 accumulation (TILEORCH_FP8_PROMOTE_INTERVAL, default 1: the WGMMAs
# accumulate one K tile into a scratch accumulator that f32 adds fold into the f32 one; 0: the WGMMAs sum the whole
# K loop, as before).  CPU evidence: the emulator's 13-bit fp8 adder model (tests/unit/test_fp8_promotion_emulated.py,
# benchmarks/fp8_promotion_model.py); no GPU run yet.
# (1) benchmarks/fp8_promotion_gpu.py once with the variable 0 and once with 1 (one process each): sweep 29's fp8
#     twins (K = 128: equal bits expected both ways) and the long-K program's error against float64 beside
#     torch._scaled_mm (fast accumulation on / off) and tileiras (use_fast_acc off / on), 4096^3 e4m3 TFLOP/s of all;
# (2) sweep 29's fp8 GPU tests under the default (the promoted kernels on the device).
# Back: one .tgz (both JSONs, the stderr, the log) and [s39 fp8acc] lines.  Timeouts add up to 115 s.
# Run from the repo root on the device: bash benchmarks/session39_fp8acc.sh
OUTDIR="${OUT:-/tmp}/s39fp8acc"; mkdir -p "$OUTDIR"
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s39fp8acc}
LOG="$OUTDIR/fp8acc.log"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; git rev-parse --short HEAD 2>/dev/null; } \
  | tee "$LOG" | sed 's/^/[s39 fp8acc] /'
for P in 0 1; do
  TILEORCH_FP8_PROMOTE_INTERVAL=$P timeout 45 python3 benchmarks/fp8_promotion_gpu.py --json "$OUTDIR/p$P.json" \
    --iters 30 2> "$OUTDIR/p$P.err" | tee -a "$LOG"
  echo "[s39 fp8acc] P=$P rc=${PIPESTATUS[0]}" | tee -a "$LOG"
done
echo "=== (2) tests/gpu/test_user_sweep29_gpu.py -k fp8 (default interval)" >> "$LOG"
timeout 25 python3 -m pytest -q -p no:cacheprovider -n 4 --tb=short -rfE -k fp8 tests/gpu/test_user_sweep29_gpu.py \
  >> "$LOG" 2>&1
echo "[s39 fp8acc] sweep29 gpu fp8 rc=$?"
grep -E "^(FAILED|ERROR)|[0-9]+ (passed|failed)" "$LOG" | tail -8 | sed 's/^/[s39 fp8acc] /'
( cd "$OUTDIR" && tar czf s39fp8acc.tgz p0.json p1.json p0.err p1.err fp8acc.log 2>/dev/null; \
  rm -f p0.json p1.json p0.err p1.err )
ls "$OUTDIR"
