# s28-gemm2's GPU check (< 120 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session28_gemm2.sh" bash benchmarks/device_session.sh shell
# Two switches, default off, each A/B'd old vs new in separate processes with torch timed beside it:
#  a. TILEORCH_PAIR_STAGES=1 (GemmConfig.pair_stages): a ring stage per operand pair for dots with an A and a B each.
#     On the CPU: at the launcher's 4096^3 retile three operand pairs ran 128x128 with 2 stages of 96 KiB (all three
#     pairs a stage; 128x256 narrowed: "no shared memory for 2 stages"); a stage per pair keeps 128x256 with 4 stages
#     of 48 KiB (168 registers, 0 spills), the plain GEMM's ring.  Rows: three_pairs (s27 H100 0.667x torch),
#     concat_k (0.781x).
#  b. TILEORCH_ATTN_CTAS_PER_SM=2 (chained_occupancy.py): GQA's 64-row chained kernel (one consumer warp group) with
#     two resident CTAs per SM (.minnctapersm 2, consumer 232 registers, 82016 B of shared memory each, 264 CTAs on
#     132 SMs) instead of one.  Row: gqa_heads_loop (s27 H100 0.521x torch SDPA).
# Expected: rel_err unchanged (~1e-3 bf16, ~2e-4 f16); "new" faster than "old" where the diagnosis holds (not yet
# measured); then the cover27 GPU tests and cover26's GQA test with both switches on: all pass.
# Writes $OUT/s28_gemm2/{<program>_{old,new}.{json,log},gpu_tests.log}; prints one line per program and variant.
S="$OUT/s28_gemm2"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$S/device.txt"
row() {  # row BENCH PROGRAM VARIANT ENV=VALUE
  env "$4" timeout ${BENCH_TIMEOUT:-22} python3 "benchmarks/$1.py" --programs "$2" --no-simt --iters 10 \
    --out "$S/$2_$3.json" > "$S/$2_$3.log" 2>&1
  echo "$2 $3 ($4) rc=$? $(grep -E "^$2 " "$S/$2_$3.log" | tr ' ' '\n' | grep -E '^(tileorch_ms|torch_ms|vs_torch|tileorch_tflops|tileorch_rel_err)=' | tr '\n' ' ')"
}
for prog in three_pairs concat_k; do
  row cover27 "$prog" old TILEORCH_PAIR_STAGES=0
  row cover27 "$prog" new TILEORCH_PAIR_STAGES=1
done
row cover26 gqa_heads_loop old TILEORCH_ATTN_CTAS_PER_SM=1
row cover26 gqa_heads_loop new TILEORCH_ATTN_CTAS_PER_SM=2
TILEORCH_PAIR_STAGES=1 TILEORCH_ATTN_CTAS_PER_SM=2 timeout ${TEST_TIMEOUT:-35} python3 -m pytest -q -p no:cacheprovider \
  -rfE -n ${WORKERS:-8} tests/gpu/test_cover27_gpu.py \
  "tests/gpu/test_cover26_gpu.py::test_emulated_case_on_the_gpu[attn_gqa_heads_loop]" > "$S/gpu_tests.log" 2>&1
echo "GPU tests (both switches on) rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
exit 0
