# Session 43, fp8 attention on the chained tier (issue 20): e4m3 / e5m2 Q and K on the first dot's e4m3 WGMMA (k32)
# beside an f16 / bf16 P V.  The GPU tests of session 43's fp8 attention set (vs torch fp32 SDPA of the dequantized
# inputs, NaN-prefilled outputs) and the older fp8 attention programs (sweep 32's attn_qk_e4m3_pv_f16, now on the
# tier; the attention zoo's refused fp8 P V), then a same-process timing: tileorch fp8 vs tileorch f16 vs torch SDPA
# f16 (flash, cuDNN), non-causal; < 150 s.
# Output: $OUT/s43fp8attn.tgz (the timing JSON and log, the pytest log).  Run (carry .whl): bash benchmarks/session43_fp8attn.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s43fp8attn"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | sed 's/^/[s43 fp8attn] /'
git rev-parse --short HEAD 2>/dev/null | sed 's/^/[s43 fp8attn] commit /'
T0=$(date +%s)
timeout ${TESTS_S:-60} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_fp8_attention_gpu.py \
  "tests/gpu/test_user_sweep32_gpu.py" -k "fp8 or e4m3 or descaled or two_scales or gqa or refused" > "$S/gpu_tests.log" 2>&1
echo "[s43 fp8attn] tests rc=$? $(( $(date +%s) - T0 )) s: $(tail -n 1 "$S/gpu_tests.log")"
grep -E "^(FAILED|ERROR)" "$S/gpu_tests.log" | head -12 | cut -c1-300 | sed 's/^/[s43 fp8attn] /'
T1=$(date +%s)
timeout ${TIMING_S:-80} python3 benchmarks/fp8_attention_timing.py --out "$S/fp8attn_timing.json" \
  --cases "32x4096x64:128x128,32x4096x64:128x64,32x4096x128:128x128,16x8192x128:128x128" > "$S/fp8attn_timing.log" 2>&1
echo "[s43 fp8attn] timing rc=$? $(( $(date +%s) - T1 )) s"; grep -E "^\[s43 fp8attn\]" "$S/fp8attn_timing.log" | head -12
tail -n 5 "$S/fp8attn_timing.log" | grep -v "^\[s43" | cut -c1-300 | sed 's/^/[s43 fp8attn] timing tail: /'
tar czf "$OUT/s43fp8attn.tgz" -C "$OUT" s43fp8attn && rm -rf "$S"
