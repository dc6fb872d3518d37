# Session 13 (s13-launch), one device call: host time per launch (tileorch.cutile.launch on its Python
# path and with TILEORCH_CUTILE_NATIVE=1 against cuda.tile.launch and a bare cuLaunchKernelEx;
# tileorch.gemm against torch.matmul), the cuTile GPU tests with the native route on, and the cached
# relaunch in a fresh process (tileorch.compile and the launcher's rc.compiled; then on the GPU).
# Everything lands in $OUT/session13.tgz (logs and JSON; the device returns few files).
# Run after stage_tc on the same machine (cuda.tile.launch compiles with tileiras; carry .whl):
#   CMD="bash benchmarks/session13_launch.sh" bash benchmarks/device_session.sh shell
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl 2>/dev/null
S="$OUT/s13"; mkdir -p "$S"
timeout 150 python3 benchmarks/launch_overhead.py --mode gpu --calls 2000 --out "$S/launch" \
  --json "$S/launch_overhead_gpu.json" 2>&1 | tee "$S/launch_overhead.log" | grep -E "^target|^TILEORCH|wrote"
TILEORCH_QUICK_GPU=1 TILEORCH_CUTILE_NATIVE=1 timeout 200 python3 -m pytest -q -p no:cacheprovider -rfE \
  -n ${WORKERS:-12} tests/gpu/test_cutile_gpu.py tests/gpu/test_user_sweep_gpu.py tests/gpu/test_memory_bound_gpu.py \
  2>&1 | tee "$S/gpu_tests_native.log" | tail -n 12
timeout 100 python3 benchmarks/compile_time.py --repeat 1 --no-tileiras --only softmax_f16 layernorm_bf16 row_sum_f32 \
  gemm_f16 attention_fwd_f16 mlp_chain_f16 --out "$S/ct" 2>&1 | tee "$S/compile_time.log" | grep -E "relaunch|python -c"
rm -rf "$S/ct/bytecode"
timeout 90 python3 benchmarks/cutile_relaunch_gpu.py --cutile --out "$S/relaunch" 2>&1 | tee "$S/relaunch.log" | tail -n 6
tar czf "$OUT/session13.tgz" -C "$OUT" s13 && rm -rf "$S"
