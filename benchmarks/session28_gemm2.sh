# s28-gemm2's GPU check (< 120 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session28_gemm2.sh" bash benchmarks/device_session.sh shell
# A ring stage per operand pair (TILEORCH_PAIR_STAGES=1, default 0: GemmConfig.pair_stages) for the dots with an A and
# a B each.  On the CPU: at the launcher's 4096^3 retile three operand pairs ran 128x128 with 2 stages of 96 KiB (three
# pairs a stage; 128x256 narrowed: "no shared memory for 2 stages"); a stage per pair keeps 128x256 in 4 stages of
# 48 KiB (168 registers, 0 spills), the plain GEMM's ring.
#  1. benchmarks/cover27.py, one process per program and setting (old = 0, new = 1), torch (cuBLAS) timed beside each:
#     three_pairs (s27 H100: 0.667x torch), concat_k (0.781x), two_loops (0.891x).  Expected:
#     rel_err unchanged (~1e-3 bf16, ~2e-4 f16); three_pairs / concat_k new faster than old (not yet measured).
#  2. tests/gpu/test_cover27_gpu.py with TILEORCH_PAIR_STAGES=1 (NaN-filled buffers, float64 references): all pass.
# Writes $OUT/s28_gemm2/{<program>_{old,new}.json,*.log,gpu_tests.log}; prints one line per program and setting.
S="$OUT/s28_gemm2"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$S/device.txt"
for prog in three_pairs concat_k two_loops; do
  for v in old new; do
    ps=0; [ "$v" = new ] && ps=1
    TILEORCH_PAIR_STAGES=$ps timeout ${BENCH_TIMEOUT:-20} python3 benchmarks/cover27.py --programs "$prog" --no-simt \
      --iters 10 --out "$S/${prog}_$v.json" > "$S/${prog}_$v.log" 2>&1
    echo "$prog $v rc=$? $(grep -E "^$prog " "$S/${prog}_$v.log" | tr ' ' '\n' | grep -E '^(tileorch_ms|torch_ms|vs_torch|tileorch_tflops|tileorch_rel_err)=' | tr '\n' ' ')"
  done
done
TILEORCH_PAIR_STAGES=1 timeout ${TEST_TIMEOUT:-35} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-8} \
  tests/gpu/test_cover27_gpu.py > "$S/gpu_tests.log" 2>&1
echo "cover27 GPU tests (TILEORCH_PAIR_STAGES=1) rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
exit 0
