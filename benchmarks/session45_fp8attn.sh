# Session 45, s45-fp8attn: FlashAttention-3's fp8 forward on the chained tier (issue 20): e4m3 Q, K and V, P cast to
# e4m3 in registers (the accumulator's element order, cvt.rn.satfinite) for an e4m3 register-A P V WGMMA (k32) reading
# V's launch-time key-major copy (launch_copies.key_major16: [.., D, S16], each 16 keys permuted as P's fragment holds
# them; made by tileorch's copy program on the launch's stream).  First the GPU tests of the fp8 attention set (tests/gpu/
# test_fp8_attention_gpu.py: the four fp8 P V programs -- d64, d128 two warp groups, e5m2 V, causal ragged -- against
# torch's float32 online softmax with P rounded per key tile, NaN-prefilled outputs, the path chained; and session
# 43's fp8 Q K programs, unchanged), then a same-process timing: fp8 P V vs the same program's f16-P form (V f16) vs
# torch SDPA f16 (flash, cuDNN), and V's copy alone; < 120 s.
# Output: $OUT/s45fp8attn.tgz (the pytest log, the timing JSON and log).  Run (carry .whl): bash benchmarks/session45_fp8attn.sh
# (TIMING_S=0: the tests only.)
OUT=${OUT:-/tmp/out}; S="$OUT/s45fp8attn"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | sed 's/^/[s45 fp8attn] /'
git rev-parse --short HEAD 2>/dev/null | sed 's/^/[s45 fp8attn] commit /'
T0=$(date +%s)
timeout ${TESTS_S:-50} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_fp8_attention_gpu.py \
  > "$S/gpu_tests.log" 2>&1
echo "[s45 fp8attn] tests rc=$? $(( $(date +%s) - T0 )) s: $(tail -n 1 "$S/gpu_tests.log")"
grep -E "^(FAILED|ERROR)" "$S/gpu_tests.log" | head -12 | cut -c1-300 | sed 's/^/[s45 fp8attn] /'
T1=$(date +%s)
[ "${TIMING_S:-60}" = 0 ] || timeout ${TIMING_S:-60} python3 benchmarks/fp8_pv_timing.py --out "$S/fp8pv_timing.json" \
  --cases "32x4096x64:128x128,32x4096x128:128x128,16x8192x128:128x128" > "$S/fp8pv_timing.log" 2>&1
echo "[s45 fp8attn] timing rc=$? $(( $(date +%s) - T1 )) s"; grep -E "^\[s45 fp8attn\]" "$S/fp8pv_timing.log" | head -12
tail -n 5 "$S/fp8pv_timing.log" | grep -v "^\[s45" | cut -c1-300 | sed 's/^/[s45 fp8attn] timing tail: /'
tar czf "$OUT/s45fp8attn.tgz" -C "$OUT" s45fp8attn && rm -rf "$S"
