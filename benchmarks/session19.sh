# Session 19 device calls (carry .whl; for PART=bench tileiras staged first with stage_tc x2).
#   PART=tests  GPU tests never run on the GPU or not re-run after session 18's fixes (sweeps 10 and 11, the
#               watchdog, debug timeout, bound launches, computed operands) and the tier/attention files they touch;
#               QUICK lists, 15 workers, -v log in $OUT so test names survive a timeout.
#   PART=bench  speed beside tileiras 13.4 and torch in one process: textbook attention causal and not (late rescale
#               default), memory-bound kernels 64 MB .. 1 GB (issue 21), compile time of the fixed set (issue 22).
# Run: PART=tests CMD="bash benchmarks/session19.sh" bash benchmarks/device_session.sh shell
S="$OUT/s19_${PART:-tests}"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl 2>&1 | tail -2
export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
if [ "${PART:-tests}" = tests ]; then
  timeout ${TEST_TIMEOUT:-500} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n ${WORKERS:-15} ${FILES:-tests/gpu/test_user_sweep10_gpu.py \
    tests/gpu/test_user_sweep11_gpu.py tests/gpu/test_synchronize_watchdog_gpu.py tests/gpu/test_debug_timeout_gpu.py \
    tests/gpu/test_bound_launches_gpu.py tests/gpu/test_computed_b_gpu.py tests/gpu/test_user_sweep9_gpu.py \
    tests/gpu/test_attention_programs.py tests/gpu/test_attention_programs2.py tests/gpu/test_tier_programs.py} ${EXTRA_FILES:-} \
    > "$S/gpu_tests.log" 2>&1
  echo "rc=$?"; grep -E "FAILED|ERROR" "$S/gpu_tests.log" | grep -v "^FAILED.*PASSED" | head -40; tail -n 3 "$S/gpu_tests.log"
elif [ "${PART:-tests}" = bench ]; then
  timeout ${ATT_TIMEOUT:-200} python3 benchmarks/attention.py --dims 64,128 --seqs 1024,4096,16384 --causal both --iters 10 \
    --out "$S/attention" 2>&1 | tee "$S/attention.log" | tail -n 16
  [ -z "${SKIP_MEM:-}" ] && timeout ${MEM_TIMEOUT:-200} python3 benchmarks/memory_bound.py --sizes ${MEM_SIZES:-small,default,large} \
    --out "$S/mem" 2>&1 | tee "$S/memory_bound.log" | tail -n 50
  [ -z "${SKIP_CT:-}" ] && timeout ${CT_TIMEOUT:-150} python3 benchmarks/compile_time.py --repeat 2 --tileiras /tmp/tc/nvidia/cu13/bin/tileiras \
    --only gemm_f16 gemm_bias_relu_f16 linear_gelu_bf16 bmm_f16 attention_fwd_f16 softmax_f16 layernorm_bf16 row_sum_f32 \
    --out "$S/ct" 2>&1 | tee "$S/compile_time.log" | tail -n 14
  rm -rf "$S/ct/bytecode"
fi
tar czf "$OUT/s19_${PART:-tests}.tgz" -C "$OUT" "s19_${PART:-tests}"
