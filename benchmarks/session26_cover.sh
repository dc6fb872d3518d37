# s26-cover's GPU check (< 120 s; run from the repository root with the compiler installed, as
# benchmarks/session25_sweep20.sh: carry .whl), e.g.  CMD="bash benchmarks/session26_cover.sh" bash benchmarks/device_session.sh shell
#  1. tests/gpu/test_cover26_gpu.py (the cover set's tensor-core programs: an f16 GEMM quantised to int8 and to fp8
#     e4m3 in the direct epilogue, LoRA at tn 256, two dots sharing a computed A, GQA looping over the group's heads
#     inside each program, attention over one key tile without a loop) and the programs of sweeps 4 / 20 that moved
#     to the chained tier (attn_short_no_loop, attn_gqa_group_loop_inside): all pass;
#  2. benchmarks/cover26.py: each of those paths (tileorch_kind gemm / chained) against the same program on the SIMT
#     path (tileorch_simt_kind simt) and torch; rel_err ~1e-3 (int8 / fp8 outputs: their rounding, ~1e-2).
# Writes $OUT/s26_cover/{gpu_tests.log,bench.log,cover26.json}; prints the test summary and one line per program.
S="$OUT/s26_cover"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
timeout ${TEST_TIMEOUT:-50} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-8} tests/gpu/test_cover26_gpu.py \
  "tests/gpu/test_user_sweep20_gpu.py::test_emulated_case_on_the_gpu[attn_gqa_group_loop_inside]" \
  "tests/gpu/test_user_sweep20_gpu.py::test_on_the_gpu_against_numpy[test_gqa_heads_looped_around_the_key_loop]" \
  "tests/gpu/test_user_sweep20_gpu.py::test_on_the_gpu_against_numpy[test_attention_over_one_key_tile_stores_probabilities]" \
  tests/gpu/test_user_sweep4_gpu.py::test_attn_short_no_loop > "$S/gpu_tests.log" 2>&1
echo "cover26 tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
[ -f "$S/failures.log" ] && head -c 2000 "$S/failures.log"
timeout ${BENCH_TIMEOUT:-65} python3 benchmarks/cover26.py --iters 10 --out "$S/cover26.json" > "$S/bench.log" 2>&1
echo "bench rc=$?"; grep -vE "^\s*$|Warning|warn" "$S/bench.log" | tail -n 12
exit 0
