# Session 14, first device call (after stage_tc x2; carry .whl): the GPU tests of the lead's changes (tile
# reductions into views, pack/unpack, split-K through a view, sweep-1's assert program), then the attention
# benchmark against tileiras 13.4 (via cuTile) and SDPA flash/cuDNN in one process.
# Run: CMD="bash benchmarks/session14_mid.sh" bash benchmarks/device_session.sh shell
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl 2>/dev/null
S="$OUT/s14mid"; mkdir -p "$S"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv | tee "$S/gpu.txt"
export TILEORCH_QUICK_GPU=1
timeout ${TEST_TIMEOUT:-200} python3 -m pytest -q -p no:cacheprovider -rfE -n 8 ${FILES:-tests/gpu/test_view_atomics_gpu.py \
  tests/gpu/test_cutile_assert_gpu.py tests/gpu/test_user_sweep_gpu.py tests/gpu/test_k_range_gpu.py} 2>&1 \
  | tee "$S/gpu_tests.log" | tail -n 15
timeout ${ATT_TIMEOUT:-330} python3 benchmarks/attention.py --dims 64,128 --seqs 1024,4096,16384 --causal both --iters 10 \
  --out "$S" 2>&1 | tee "$S/attention.log" | tail -n 16
tar czf "$OUT/s14mid.tgz" -C "$OUT" s14mid
