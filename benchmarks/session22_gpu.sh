# Session 22's GPU work, one device session (H200). Run from the repository root through device_session.sh:
#   PART=tests CMD="bash benchmarks/session22_gpu.sh" bash benchmarks/device_session.sh shell     (carry .whl)
#       the GPU tests of what changed a default path this session: the launcher's deferred first compile of a
#       GEMM program (every cuTile GEMM launch: dot zoo, computed operands, K ranges, operand/column views,
#       program grids, transposed C, sweeps 6-8) and the new programs' GPU files (attention, dots, sweep 14),
#       QUICK, 15 workers, one log
#   PART=bench (after stage_tc x2, carry .whl): benchmarks/tile_programs.py beside tileiras (first-launch
#       seconds and TFLOP/s), then benchmarks/session22_prologue_probe.sh when present
S="$OUT/s22_gpu"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
PART=${PART:-tests}
case "$PART" in
  tests)
    export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
    FILES="tests/gpu/test_tier_programs.py tests/gpu/test_cutile_gpu.py tests/gpu/test_computed_b_gpu.py
      tests/gpu/test_k_range_gpu.py tests/gpu/test_operand_views_gpu.py tests/gpu/test_column_views_gpu.py
      tests/gpu/test_program_grid_gpu.py tests/gpu/test_transposed_c.py tests/gpu/test_user_sweep6_gpu.py
      tests/gpu/test_user_sweep7_gpu.py tests/gpu/test_user_sweep8_gpu.py tests/gpu/test_store_chunks_gpu.py
      tests/gpu/test_user_sweep13_gpu.py::test_every_program_has_a_test tests/gpu/test_row_runs_gpu.py
      tests/gpu/test_attention_programs4.py tests/gpu/test_user_sweep6_gpu.py tests/gpu/test_user_sweep14_gpu.py
      tests/gpu/test_user_sweep11_gpu.py tests/gpu/test_computed_operand_prefetch_gpu.py"
    for f in ${NEW_GPU_FILES:-}; do [ -e "${f%%::*}" ] && FILES="$FILES $f"; done
    timeout ${TEST_TIMEOUT:-420} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 $FILES \
      > "$S/gpu_tests.log" 2>&1
    echo "tests rc=$?"; grep -cE " PASSED" "$S/gpu_tests.log"; grep -E " FAILED| ERROR" "$S/gpu_tests.log" | head -40
    tail -n 2 "$S/gpu_tests.log"; [ -f "$S/failures.log" ] && head -c 5000 "$S/failures.log"
    tar czf "$OUT/s22_gpu_tests.tgz" -C "$OUT" s22_gpu ;;
  bench)
    TILEORCH_CACHE_DIR=/tmp/s22-bench-cache timeout ${TILE_TIMEOUT:-240} python3 benchmarks/tile_programs.py --out "$S/tile" --iters 20 --sizes 4096x4096x4096 \
      2>&1 | tee "$S/tile_programs.log" | grep -v "^{" | tail -n 36
    # s22-compile's TILEORCH_ROW_RUNS (default off: fewer runs per thread of a single-pass row reduction, a third
    # of the softmax's compile): its run time against the default, same process, tileiras beside
    timeout ${ROW_TIMEOUT:-120} python3 benchmarks/memory_bound.py --only softmax_f16_4096x1000 softmax_f16_rows_x1024 \
      layernorm_f16 rmsnorm_f16 argmax_f32 argmax_f32_x512 --sizes small,default --iters 20 --env default \
      --env TILEORCH_ROW_RUNS=2 --env TILEORCH_ROW_RUNS=1 --out "$S/row_runs" 2>&1 | tee "$S/row_runs.log" \
      | grep -E "^(soft|layer|rms|arg)|summary|rror" | head -40
    [ -f benchmarks/session22_prologue_probe.sh ] && bash benchmarks/session22_prologue_probe.sh
    tar czf "$OUT/s22_gpu_bench.tgz" -C "$OUT" s22_gpu ;;
  *) echo "PART must be tests or bench"; exit 2 ;;
esac
