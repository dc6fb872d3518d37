# Session 14 final device call (after stage_tc x2; carry .whl): the GPU tests of what changed (print, view
# atomics and pack/unpack, sweep 6, first-hour cases) and regressions (attention, sweeps 1-5, memory-bound,
# cuTile, tier zoo QUICK), then the memory-bound kernels against tileiras 13.4 and torch (64 MB .. 1 GB).
# Run: CMD="bash benchmarks/session14_final.sh" bash benchmarks/device_session.sh shell   -> $OUT/s14final.tgz
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl 2>/dev/null
S="$OUT/s14final"; mkdir -p "$S"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv | tee "$S/gpu.txt"
export TILEORCH_QUICK_GPU=1
timeout ${TEST_TIMEOUT:-420} python3 -m pytest -q -p no:cacheprovider -rfE -n 15 ${FILES:-tests/gpu/test_cutile_print_gpu.py \
  tests/gpu/test_user_sweep6_gpu.py tests/gpu/test_first_hour_gpu.py tests/gpu/test_view_atomics_gpu.py \
  tests/gpu/test_cutile_assert_gpu.py tests/gpu/test_user_sweep_gpu.py tests/gpu/test_user_sweep2_gpu.py \
  tests/gpu/test_user_sweep3_gpu.py tests/gpu/test_user_sweep4_gpu.py tests/gpu/test_user_sweep5_gpu.py \
  tests/gpu/test_attention_programs.py tests/gpu/test_memory_bound_gpu.py tests/gpu/test_pointer_tiles_gpu.py \
  tests/gpu/test_cutile_gpu.py tests/gpu/test_k_range_gpu.py} 2>&1 | tee "$S/gpu_tests.log" | tail -n 25
tar czf "$OUT/s14final.tgz" -C "$OUT" s14final
