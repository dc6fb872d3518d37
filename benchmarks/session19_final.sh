# Session 19 final device call (carry .whl; tileiras staged first with stage_tc x2), main after every merge:
#   1. GPU tests of what changed: operand views (X @ W[e] on the GEMM tier), int64-id gathers and the SIMT
#      gather/scatter PTX changes, sweeps 9/10/11 (shared launch helper), memory-bound programs, causal
#      attention with the snake schedule chosen per launch; QUICK lists, 15 workers, failures logged as they happen
#   2. memory-bound gather/scatter beside tileiras and torch (64 MB and 1 GB), predicated index loads on / off
#   3. textbook causal attention beside tileiras and SDPA (issue 20's shapes) with the new causal default (snake
#      schedule, CTA count from schedulers/chained_balance.py at launch); non-causal is unchanged (first call's numbers)
# Run: CMD="bash benchmarks/session19_final.sh" bash benchmarks/device_session.sh shell
S="$OUT/s19_final"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
timeout ${TEST_TIMEOUT:-210} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 \
  tests/gpu/test_operand_views_gpu.py tests/gpu/test_pointer_gather_i64_gpu.py tests/gpu/test_user_sweep10_gpu.py \
  tests/gpu/test_user_sweep11_gpu.py tests/gpu/test_user_sweep9_gpu.py tests/gpu/test_memory_bound_gpu.py \
  ${ATTN_TESTS:-} > "$S/gpu_tests.log" 2>&1
echo "tests rc=$?"; grep -cE " PASSED" "$S/gpu_tests.log"; grep -E " FAILED| ERROR" "$S/gpu_tests.log" | head -20; tail -n 2 "$S/gpu_tests.log"
[ -f "$S/failures.log" ] && head -c 3000 "$S/failures.log"
timeout ${ATT_TEST_TIMEOUT:-80} python3 -m pytest -q -p no:cacheprovider -rfE -n 15 tests/gpu/test_attention_programs.py \
  -k "snake or causal_attention or sample_style_attention" > "$S/gpu_tests_attention.log" 2>&1
echo "attention tests rc=$?"; tail -n 3 "$S/gpu_tests_attention.log"
timeout ${MEM_TIMEOUT:-80} python3 benchmarks/memory_bound.py --only gather_rows_f32 gather_rows_bf16 scatter_rows_f32 \
  --sizes small,large --env default --env TILEORCH_PREDICATED_INDEX_LOADS=0 --out "$S/mem" 2>&1 | tee "$S/memory_bound.log" | tail -n 16
timeout ${ATT_TIMEOUT:-120} python3 benchmarks/attention.py --dims 64,128 --seqs 1024,4096,16384 --causal ${CAUSAL:-yes} --iters 10 \
  --out "$S/attention" 2>&1 | tee "$S/attention.log" | tail -n 14
tar czf "$OUT/s19_final.tgz" -C "$OUT" s19_final
