# Session 18 device calls (carry .whl; tileiras staged first with stage_tc x2).
#   PART=tests  GPU tests of everything merged this session (sweeps 9 and 10, computed A / vector-scaled B on the
#               GEMM tier, the chained kernel's late rescale default, invalid-input and compile fixes) and the
#               regressions they could cause; QUICK lists, 15 workers.
#   PART=bench  (then PART=bench2: memory-bound and launch) speed beside tileiras 13.4 and torch in one process: textbook attention (issue 20's shapes),
#               the new computed-operand programs, memory-bound kernels 64 MB .. 1 GB (issue 21), compile time of
#               the fixed set and host time per launch (issue 22).
# Run: PART=tests CMD="bash benchmarks/session18.sh" bash benchmarks/device_session.sh shell
S="$OUT/s18_${PART:-tests}"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl 2>/dev/null
export TILEORCH_QUICK_GPU=1
if [ "${PART:-tests}" = tests ]; then
  timeout ${TEST_TIMEOUT:-540} python3 -m pytest -q -p no:cacheprovider -rfE -n 15 ${FILES:-tests/gpu/test_user_sweep9_gpu.py \
    tests/gpu/test_computed_b_gpu.py tests/gpu/test_attention_programs.py \
    tests/gpu/test_attention_programs2.py tests/gpu/test_tier_programs.py tests/gpu/test_user_sweep8_gpu.py \
    tests/gpu/test_user_sweep7_gpu.py tests/gpu/test_user_sweep6_gpu.py tests/gpu/test_user_sweep_gpu.py \
    tests/gpu/test_memory_bound_gpu.py tests/gpu/test_cutile_gpu.py tests/gpu/test_gemm.py \
    tests/gpu/test_pointer_tiles_gpu.py tests/gpu/test_view_atomics_gpu.py tests/gpu/test_bound_launches_gpu.py} ${EXTRA_FILES:-} \
    2>&1 | tee "$S/gpu_tests.log" | tail -n 30
elif [ "${PART:-tests}" = bench ]; then
  timeout 170 python3 benchmarks/attention.py --dims 64,128 --seqs 1024,4096 --causal both --iters 10 \
    --out "$S/attention" 2>&1 | tee "$S/attention.log" | tail -n 12
  [ -n "${TP:-}" ] && timeout 150 python3 benchmarks/tile_programs.py --programs "$TP" --sizes 4096x4096x4096 --iters 10 \
    --out "$S/tile" 2>&1 | tee "$S/tile_programs.log" | tail -n 12
  [ -z "${SKIP_CT:-}" ] && timeout ${CT_TIMEOUT:-200} python3 benchmarks/compile_time.py --repeat 2 --tileiras /tmp/tc/nvidia/cu13/bin/tileiras \
    --only gemm_f16 gemm_bias_relu_f16 linear_gelu_bf16 bmm_f16 attention_fwd_f16 softmax_f16 layernorm_bf16 row_sum_f32 \
    --out "$S/ct" 2>&1 | tee "$S/compile_time.log" | tail -n 14
  rm -rf "$S/ct/bytecode"
fi
if [ "${PART:-tests}" = bench2 ]; then
  timeout ${MEM_TIMEOUT:-200} python3 benchmarks/memory_bound.py --sizes ${MEM_SIZES:-small,default,large} --out "$S/mem" 2>&1 \
    | tee "$S/memory_bound.log" | tail -n 12
  timeout 80 python3 benchmarks/launch_overhead.py --mode gpu --calls 2000 --out "$S/launch" \
    --json "$S/launch_overhead_gpu.json" 2>&1 | tee "$S/launch_overhead.log" | grep -E "^target|wrote" | head -12
fi
tar czf "$OUT/s18_${PART:-tests}.tgz" -C "$OUT" "s18_${PART:-tests}"
