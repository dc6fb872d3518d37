#!/usr/bin/env bash
# Session 38 (branch s38-fp8): sweep 29's two fp8 GEMMs with f32 outputs (fp8_e4m3_gemm_rows_of_32,
# fp8_e5m2_gemm_row_scales_f32) failed tests/gpu/test_user_sweep29_gpu.py on an H100 (main 49d038e8) with no log kept;
# the CPU emulator (exact fp8 decoding, f32 sums) now runs all four fp8 GEMMs and agrees with float64 at the tests'
# tolerances, on the same PTX the GPU launch compiles (128x128 there; the launch retiles to 128x256 2x1 clusters).
# (1) the whole sweep-29 GPU file, every failure's full text (--tb=long -rfE) into one log, the summary printed;
# (2) tests/gpu/test_fp8_wgmma_accumulation_gpu.py: how the tensor core sums fp8 products (crafted 1 + 2^-p sums per
#     placement: which p come back exact) and tileorch's error on the failing cases' operands beside
#     torch._scaled_mm's (cuBLAS, fast accumulation on / off).
# What it should show if the tolerance, not the compiler, is wrong: (2)'s probe exact only up to p ~ 13 (an
# accumulator of ~13 fraction bits, not f32's 23), and tileorch's error of cuBLAS fast-accumulation's size.
# Run from the repo root on the device: bash benchmarks/session38_fp8.sh   (timeouts add up to 115 s)
OUTDIR="${OUT:-/tmp}/s38fp8"; mkdir -p "$OUTDIR"
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s38fp8}
LOG="$OUTDIR/fp8_gpu.log"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git rev-parse --short HEAD 2>/dev/null; } \
  | tee "$LOG" | sed 's/^/[s38 fp8] /'
echo "=== (1) tests/gpu/test_user_sweep29_gpu.py" >> "$LOG"
timeout 75 python3 -m pytest -q -p no:cacheprovider -n 8 --tb=long -rfE tests/gpu/test_user_sweep29_gpu.py \
  >> "$LOG" 2>&1
echo "[s38 fp8] sweep29 gpu rc=$?"
grep -E "^(FAILED|ERROR)|[0-9]+ (passed|failed)|^E .*(Mismatch|Max abs|Max rel|mismatch)" "$LOG" | head -30 \
  | sed 's/^/[s38 fp8] /'
echo "=== (2) tests/gpu/test_fp8_wgmma_accumulation_gpu.py" >> "$LOG"
timeout 40 python3 -m pytest -q -p no:cacheprovider -n 0 -s --tb=short -rfE tests/gpu/test_fp8_wgmma_accumulation_gpu.py \
  > "$OUTDIR/probe.txt" 2>&1
echo "[s38 fp8] accumulation probe rc=$?"
cat "$OUTDIR/probe.txt" >> "$LOG" && rm -f "$OUTDIR/probe.txt"
sed -n '/^=== (2)/,$p' "$LOG" | grep -oE "\[s38 fp8\].*|^(FAILED|ERROR).*|[0-9]+ (passed|failed).*" | head -40 \
  | sed 's/^\([^[]\)/[s38 fp8] \1/'
