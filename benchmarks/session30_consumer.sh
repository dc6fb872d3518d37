# s30-consumer's GPU check (< 120 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session30_consumer.sh" bash benchmarks/device_session.sh shell
# Session 30 made TILEORCH_GEMM_SHARED_CONSUMER=1 the default (kernels/gemm/build.py shared_consumer: a plain GEMM's
# two consumer warp groups run one body, the warp group read from %tid, one 256-thread epilogue barrier; =0 gives
# each warp group its own body, the kernels before session 30).  This call:
#  1. the tier's GEMM routes' GPU tests with the new default (torch fp32 references): test_tier_programs.py
#     (TILEORCH_QUICK_GPU=1), test_tier_column_reductions.py (the column-reduction epilogue in the one body),
#     test_k_range_gpu.py, test_program_grid_gpu.py, test_transposed_c.py; expected: all pass;
#  2. benchmarks/session29_gemmcompile.sh: `tileorch gemm M N K --bench` (vs cuBLAS in the same process) at 4096^3,
#     8192^3, 2048^3, switch 0 then 1, two rounds, then tests/gpu/test_gemm.py (tileorch.gemm) with the switch on
#     (the default now); expected: "ratio" of =1 within =0's run-to-run spread (session 29 on an H200: 4096^3
#     0.950/0.949 vs 0.949/0.949), the GEMM tests all pass.
# Writes $OUT/s30_consumer/{device.txt,tests.log} and $OUT/s29_gemmcompile/ (part 2); prints a line per part/run.
S="$OUT/s30_consumer"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
unset TILEORCH_GEMM_SHARED_CONSUMER  # the default (1)
TILEORCH_QUICK_GPU=1 timeout ${TIER_TIMEOUT:-45} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-12} \
  tests/gpu/test_tier_programs.py tests/gpu/test_tier_column_reductions.py tests/gpu/test_k_range_gpu.py \
  tests/gpu/test_program_grid_gpu.py tests/gpu/test_transposed_c.py > "$S/tests.log" 2>&1
echo "tier GEMM GPU tests (default: one consumer body) rc=$?"; grep -E "^(FAILED|ERROR)|passed|failed" "$S/tests.log" | tail -n 12
BENCH_TIMEOUT=${BENCH_TIMEOUT:-12} TEST_TIMEOUT=${TEST_TIMEOUT:-30} bash benchmarks/session29_gemmcompile.sh
exit 0
