# The GPU work left by sessions 20 and 21 (no device was lent in session 21), in the order the next device session
# should run it: first the GPU tests of every default path changed without a GPU run, then the probes.
#   PART=tests  (default; ~5 min) the tests below, QUICK, 15 workers, one log, each failure's report logged as it happens
#   PART=attn   benchmarks/session20_attn_probe.sh (ping-pong kernel A/B, head dim 256; ~6 min)
#   PART=mem    benchmarks/session20_mem_probe.sh (needs tileiras staged: stage_tc with .tc1 then .tc2; ~3 min)
# Run: PART=tests CMD="bash benchmarks/session21_gpu.sh" bash benchmarks/device_session.sh shell   (carry .whl)
# Default paths changed without a GPU run, and the file that tests each:
#   C into a column slice, dots sharing a viewed A (s20-views)      test_column_views_gpu.py, sweep 11's column store
#   the launch-time K-major copy on the launch's own stream (s20)  test_launch_copy_ordering_gpu.py
#   counting while loops and general-order K loads on tensor cores (s21-attn: tileas-while-to-for,
#     tileas-view-order-to-reshape)                                 test_attention_programs3.py, sweep 8's mm_while_k_loop
#   sweeps 12 and 13, strided views (s20-mem, s21-mem)               test_user_sweep12_gpu.py, test_user_sweep13_gpu.py
#   switches (default off): TILEORCH_SIMT_STORE_CHUNK                 test_store_chunks_gpu.py
#   the folded GPU harnesses (review D1, D7)                         sweep 10/12 files, -k pingpong_kernel
PART=${PART:-tests}
case "$PART" in
  tests)
    S="$OUT/s21_gpu"; mkdir -p "$S"
    python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
    export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
    timeout ${TEST_TIMEOUT:-420} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 \
      tests/gpu/test_launch_copy_ordering_gpu.py tests/gpu/test_column_views_gpu.py tests/gpu/test_operand_views_gpu.py \
      tests/gpu/test_user_sweep11_gpu.py::test_store_into_column_slice tests/gpu/test_attention_programs3.py \
      "tests/gpu/test_user_sweep8_gpu.py" tests/gpu/test_user_sweep10_gpu.py tests/gpu/test_user_sweep12_gpu.py \
      tests/gpu/test_user_sweep13_gpu.py tests/gpu/test_store_chunks_gpu.py > "$S/gpu_tests.log" 2>&1
    echo "tests rc=$?"
    timeout ${ATT_TEST_TIMEOUT:-150} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 \
      tests/gpu/test_attention_programs.py -k "pingpong_kernel or on_tensor_cores" >> "$S/gpu_tests.log" 2>&1
    echo "attention tests rc=$?"; grep -cE " PASSED" "$S/gpu_tests.log"; grep -E " FAILED| ERROR" "$S/gpu_tests.log" | head -30
    tail -n 2 "$S/gpu_tests.log"; [ -f "$S/failures.log" ] && head -c 4000 "$S/failures.log"
    tar czf "$OUT/s21_gpu.tgz" -C "$OUT" s21_gpu ;;
  attn) bash benchmarks/session20_attn_probe.sh ;;
  mem) bash benchmarks/session20_mem_probe.sh ;;
  *) echo "PART must be tests, attn or mem"; exit 2 ;;
esac
