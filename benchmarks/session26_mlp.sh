# Session 26 s26-mlp on the GPU (one device call, < 120 s; run from the repository root with the compiler installed;
# results under $OUT): the epilogue dot's second dot over several N tiles per work tile (the first dot computed once
# per M tile instead of once per N tile; GemmConfig.epi_loop, TILEORCH_EPILOGUE_DOT_COARSEN).
#  1. benchmarks/epilogue_dot.py, the MLP rows (mlp_nn_linear: nn.Linear weights + bias, mlp: silu(x W1) W2) with the
#     loop off (session 25's kernel: 0.375 ms vs torch 0.055 ms on the H200 for 8192x4096x64x4096) and auto (the
#     default): tileorch_epi_c should read [1] off and e.g. [16] auto (64 M tiles, two groups of the 32 N tiles on
#     132 SMs), vs_torch (torch_ms / tileorch_ms) should rise from ~0.15 towards ~0.7-1; rel_err ~1e-3 both;
#  2. tests/gpu/test_epilogue_dot_gpu.py (sessions 24-25's cases and session 26's: the setting auto / off / 2 / 3 / 5
#     on 5 ragged N tiles, a K-major E with 3 N tiles per work tile, a refusal where the hidden activation reads the
#     column tile): all pass.
S="$OUT/s26_mlp"; mkdir -p "$S"
for c in off auto; do
  echo "--- TILEORCH_EPILOGUE_DOT_COARSEN=$c"
  TILEORCH_EPILOGUE_DOT_COARSEN=$c timeout 35 python3 benchmarks/epilogue_dot.py --iters 20 --no-simt --no-tileiras \
    --programs mlp_nn_linear,mlp --shapes 8192x4096x64x4096,16384x2048x128x2048 --summary \
    --out "$S/epilogue_dot_$c.json" 2>&1 | tee "$S/bench_$c.log" | grep -v Warning
done
timeout 60 python3 -m pytest -q -p no:cacheprovider -rfE tests/gpu/test_epilogue_dot_gpu.py > "$S/gpu_tests.log" 2>&1
echo "tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
