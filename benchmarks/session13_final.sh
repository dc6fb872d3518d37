# Session 13 final device call (after stage_tc x2; carry .whl): the GPU tests of what changed (SIMT lowering:
# slot coordinates, mask factors, gather occupancy hint; ct.assert_; relaunch by source identity; early Q at
# d128; sweep 5), then memory-bound kernels against tileiras 13.4 and torch, then launch host time.
# Run: CMD="bash benchmarks/session13_final.sh" bash benchmarks/device_session.sh shell
# Everything lands in $OUT/s13final.tgz.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl 2>/dev/null
S="$OUT/s13final"; mkdir -p "$S"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv | tee "$S/gpu.txt"
export TILEORCH_QUICK_GPU=1
timeout ${TEST_TIMEOUT:-330} python3 -m pytest -q -p no:cacheprovider -rfE -n 15 ${FILES:-tests/gpu/test_cutile_assert_gpu.py tests/gpu/test_user_sweep5_gpu.py \
  tests/gpu/test_memory_bound_gpu.py tests/gpu/test_pointer_tiles_gpu.py tests/gpu/test_cutile_gpu.py \
  tests/gpu/test_user_sweep_gpu.py tests/gpu/test_user_sweep2_gpu.py tests/gpu/test_user_sweep4_gpu.py \
  tests/gpu/test_attention_programs.py} 2>&1 | tee "$S/gpu_tests.log" | tail -n 15
timeout ${MEM_TIMEOUT:-200} python3 benchmarks/memory_bound.py --sizes small,default,large --out "$S/mem" 2>&1 \
  | tee "$S/memory_bound.log" | tail -n 12
tar czf "$OUT/s13final.tgz" -C "$OUT" s13final
