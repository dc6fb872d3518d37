#!/usr/bin/env bash
# Session 39 (branch s39-fp8acc): two-level fp8 accumulation (TILEORCH_FP8_PROMOTE_INTERVAL, default 1: the WGMMAs
# accumulate one K tile into a scratch accumulator that f32 adds fold into the f32 one; 0: the WGMMAs sum the whole
# K loop, as before).  CPU evidence: the emulator's 13-bit fp8 adder model (tests/unit/test_fp8_promotion_emulated.py,
# benchmarks/fp8_promotion_model.py); no GPU run yet.
# (1) benchmarks/fp8_promotion_gpu.py once with the variable 0, 1 and 2 (one process each): sweep 29's fp8 GEMMs on
#     normal-valued operands against torch fp32 (0 and 1; K = 128 is one K tile: equal bits expected both ways) and
#     the long-K program's error against float64 beside torch._scaled_mm (fast accumulation on / off) and tileiras
#     (use_fast_acc off / on; in the P=1 process), 4096^3 e4m3 -> f32 TFLOP/s of all of them.
# (2) tests/gpu/test_fp8_promotion_gpu.py: the promoted long-K GEMM meets rtol 1e-3 against float64 (default interval).
# Back: one .tgz (the JSONs, the stderr, the log) and the log; [s39 fp8acc] lines.  Timeouts add up to 115 s.
# Run from the repo root on the device: bash benchmarks/session39_fp8acc.sh
OUTDIR="${OUT:-/tmp}/s39fp8acc"; mkdir -p "$OUTDIR"
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s39fp8acc}
LOG="$OUTDIR/fp8acc.log"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; git rev-parse --short HEAD 2>/dev/null; } \
  | tee "$LOG" | sed 's/^/[s39 fp8acc] /'
for run in "0 35 sweep29,long_k" "1 40 sweep29,long_k" "2 20 long_k"; do
  set -- $run
  TILEORCH_FP8_PROMOTE_INTERVAL=$1 timeout "$2" python3 benchmarks/fp8_promotion_gpu.py --json "$OUTDIR/p$1.json" \
    --iters 30 --parts "$3" 2> "$OUTDIR/p$1.err" | tee -a "$LOG"
  echo "[s39 fp8acc] P=$1 rc=${PIPESTATUS[0]}" | tee -a "$LOG"
done
echo "=== (2) tests/gpu/test_fp8_promotion_gpu.py (default interval)" >> "$LOG"
timeout 20 python3 -m pytest -q -p no:cacheprovider -n 0 -s --tb=short -rfE tests/gpu/test_fp8_promotion_gpu.py \
  >> "$LOG" 2>&1
echo "[s39 fp8acc] test_fp8_promotion_gpu rc=$?"
sed -n '/^=== (2)/,$p' "$LOG" | grep -E "^\[s39|^(FAILED|ERROR)|[0-9]+ (passed|failed)" | sed 's/^\([^[]\)/[s39 fp8acc] \1/'
( cd "$OUTDIR" && tar czf s39fp8acc.tgz p*.json p*.err fp8acc.log 2>/dev/null; rm -f p*.json p*.err )
ls "$OUTDIR"
