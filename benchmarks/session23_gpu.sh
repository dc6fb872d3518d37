# Session 23's GPU work. Run from the repository root through device_session.sh (carry .whl):
#   PART=tests CMD="bash benchmarks/session23_gpu.sh" bash benchmarks/device_session.sh shell
#       the GPU files session 22 left unrun (attention set 4 incl. the chain-under-a-branch fix, user sweep 15,
#       sweep 6's unfinished ones), QUICK, 15 workers, one log; then the three memory_bound.py cases never run
#       (no tileiras: correctness + torch ratio + copy ratio)
#   PART=mid: this session's GPU files (sweeps 16/17, dQ/dK-dV on tensor cores, register A, the 256-row tiles after
#       the setmaxnreg budget fix, the deferred GEMM launch) and the diagnostics of benchmarks/session23_diag.py
#   PART=bench (after stage_tc x2): the helpers' benchmark scripts beside tileiras
S="$OUT/s23_gpu"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$S/device.txt"
PART=${PART:-tests}
case "$PART" in
  tests)
    export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
    FILES="tests/gpu/test_attention_programs4.py tests/gpu/test_user_sweep15_gpu.py tests/gpu/test_user_sweep6_gpu.py
      tests/gpu/test_memory_bound_gpu.py"
    for f in ${NEW_GPU_FILES:-}; do [ -e "${f%%::*}" ] && FILES="$FILES $f"; done
    timeout ${TEST_TIMEOUT:-330} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 $FILES \
      > "$S/gpu_tests.log" 2>&1
    echo "tests rc=$?"; grep -cE " PASSED" "$S/gpu_tests.log"; grep -E " FAILED| ERROR" "$S/gpu_tests.log" | head -40
    tail -n 2 "$S/gpu_tests.log"; [ -f "$S/failures.log" ] && head -c 4000 "$S/failures.log"
    timeout ${MEM_TIMEOUT:-120} python3 benchmarks/memory_bound.py --no-tileiras --only cross_entropy_bf16_v32000 \
      rope_bf16_llama adamw_f32_bf16_grads --sizes small,default,large --iters 20 --out "$S/mem_new" 2>&1 \
      | tee "$S/mem_new.log" | grep -v "^{" | tail -n 16
    tar czf "$OUT/s23_gpu_tests.tgz" -C "$OUT" s23_gpu ;;
  mid)
    export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
    FILES="tests/gpu/test_user_sweep16_gpu.py tests/gpu/test_user_sweep17_gpu.py tests/gpu/test_user_sweep14_gpu.py
      tests/gpu/test_operand_views_gpu.py tests/gpu/test_attention_programs4.py tests/gpu/test_user_sweep5_gpu.py
      tests/gpu/test_user_sweep3_gpu.py tests/gpu/test_register_a_gpu.py tests/gpu/test_computed_b_gpu.py
      tests/gpu/test_user_sweep6_gpu.py::test_attn_head_dims_and_tile_rows
      tests/gpu/test_attention_programs.py::test_attention_256_row_tiles tests/gpu/test_tier_programs.py
      tests/gpu/test_cutile_gpu.py"
    for f in ${NEW_GPU_FILES:-}; do [ -e "${f%%::*}" ] && FILES="$FILES $f"; done
    timeout ${DIAG_TIMEOUT:-60} python3 benchmarks/session23_diag.py varlen 2>&1 | tee "$S/diag_varlen.log" | tail -n 12
    timeout ${TEST_TIMEOUT:-400} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 $FILES \
      > "$S/gpu_tests.log" 2>&1
    echo "tests rc=$?"; grep -cE " PASSED" "$S/gpu_tests.log"; grep -E "(FAILED|ERROR) tests" "$S/gpu_tests.log" | sort -u | head -40
    grep -oE "(PASSED|FAILED|SKIPPED|ERROR) tests/gpu/\S+" "$S/gpu_tests.log" | awk '{print $2}' | sort -u > /tmp/done.txt
    grep -oE "^tests/gpu/\S+" "$S/gpu_tests.log" | sort -u | comm -23 - /tmp/done.txt | head -20 | sed 's/^/unfinished: /'
    tail -n 2 "$S/gpu_tests.log"; [ -f "$S/failures.log" ] && head -c 5000 "$S/failures.log"
    tar czf "$OUT/s23_gpu_mid.tgz" -C "$OUT" s23_gpu ;;
  *) echo "PART must be tests or mid"; exit 2 ;;
esac
