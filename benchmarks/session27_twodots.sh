# s27-twodots' GPU check (< 120 s; run from the repository root with the compiler installed, as
# benchmarks/session26_cover.sh: carry .whl), e.g.  CMD="bash benchmarks/session27_twodots.sh" bash benchmarks/device_session.sh shell
#  1. tests/gpu/test_cover27_gpu.py (dots with an A tile each in one K loop: a concatenated-K bf16 linear with [N, K]
#     weights and a bias, a sum of products with relu, a batched dual-input gated layer with two accumulators, three
#     operand pairs; two K loops over the same K tiles, fused: two accumulators, and one continued across them; two
#     K loops of two K lengths as K segments of one pipeline, K1 = 128 / K2 = 200, also launched from a one-K spec) and
#     the earlier sets' programs this branch moved onto the WGMMA kernel (cover26's three two-A programs, sweep 14's
#     two_products_one_acc, sweep 9's A1 B - A2 B sharing one B, cover26's two K loops K1 = 128 / K2 = 200): all pass against float64 numpy (NaN-prefilled outputs, ragged M / N / K);
#  2. benchmarks/cover27.py: each program (tileorch_kind gemm) against the same program on the SIMT path
#     (tileorch_simt_kind simt) and torch (fp32 references: rel_err ~1e-3).
# Writes $OUT/s27_twodots/{gpu_tests.log,bench.log,cover27.json}; prints the test summary and one line per program.
S="$OUT/s27_twodots"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
timeout ${TEST_TIMEOUT:-50} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-8} tests/gpu/test_cover27_gpu.py \
  "tests/gpu/test_cover26_gpu.py::test_emulated_case_on_the_gpu[two_dots_two_a_two_accumulators]" \
  "tests/gpu/test_cover26_gpu.py::test_emulated_case_on_the_gpu[two_dots_two_a_one_accumulator]" \
  "tests/gpu/test_cover26_gpu.py::test_emulated_case_on_the_gpu[two_dots_two_a_summed_products]" \
  "tests/gpu/test_cover26_gpu.py::test_emulated_case_on_the_gpu[two_k_loops_one_accumulator]" \
  tests/gpu/test_user_sweep14_gpu.py::test_two_products_one_acc tests/gpu/test_user_sweep9_gpu.py::test_two_dots_shared_b \
  > "$S/gpu_tests.log" 2>&1
echo "cover27 tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
[ -f "$S/failures.log" ] && head -c 2000 "$S/failures.log"
timeout ${BENCH_TIMEOUT:-60} python3 benchmarks/cover27.py --iters 10 --out "$S/cover27.json" > "$S/bench.log" 2>&1
echo "bench rc=$?"; grep -vE "^\s*$|Warning|warn" "$S/bench.log" | tail -n 12
exit 0
