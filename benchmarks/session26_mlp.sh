# Session 26 s26-mlp on the GPU (one device call, < 120 s; run from the repository root with the compiler installed;
# results under $OUT): the epilogue dot's second dot over several N tiles per work tile (the first dot computed once
# per work tile instead of once per N tile; GemmConfig.epi_loop, TILEORCH_EPILOGUE_DOT_COARSEN).
#  1. tests/gpu/test_epilogue_dot_gpu.py, session 26's cases (the setting auto / off / 2 / 3 / 5 on 5 ragged N tiles,
#     a K-major E with 3 N tiles per work tile, the refusal where the hidden activation reads the column tile; each
#     checks the count its launch was prepared with): all pass.  (Sessions 24-25's cases of the file run on the same
#     kernels for programs of one N tile per work tile (auto at their shapes); the whole file: ~60 s more.)
#  2. benchmarks/epilogue_dot.py at 8192x4096x64x4096 (mlp_nn_linear: nn.Linear weights + bias; mlp: silu(x W1) W2)
#     with the loop off (session 25's kernel, byte-identical PTX: 0.375 ms vs torch 0.055 ms on the H200) and auto
#     (the default), and mlp_nn_linear with a whole row of 32 N tiles per work tile (x read once, 64 CTAs);
#     tileorch_epi_c should read [1] off, [16] auto (64 M tiles: two groups of the 32 N tiles on 132 SMs), [32];
#     vs_torch = torch_ms / tileorch_ms should rise from ~0.15 (off); rel_err ~1e-3 in every row.  If 32 beats auto,
#     auto's rule (launchers/gemm_host.epi_tiles_per_cta) wants retuning.
S="$OUT/s26_mlp"; mkdir -p "$S"
timeout 40 python3 -m pytest -q -p no:cacheprovider -rfE tests/gpu/test_epilogue_dot_gpu.py \
  -k "several_n_tiles or three_n_tiles or column_tile" > "$S/gpu_tests.log" 2>&1
echo "tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
run() {  # $1: the setting, $2: programs, $3: seconds
  echo "--- TILEORCH_EPILOGUE_DOT_COARSEN=$1"
  TILEORCH_EPILOGUE_DOT_COARSEN=$1 timeout "$3" python3 benchmarks/epilogue_dot.py --iters 20 --no-simt --no-tileiras \
    --programs "$2" --shapes 8192x4096x64x4096 --summary --out "$S/epilogue_dot_$1.json" > "$S/bench_$1.log" 2>&1
  echo "rc=$?"; grep -E "^(mlp|lowrank|lora)" "$S/bench_$1.log"; grep -iE "error|Traceback" "$S/bench_$1.log" | head -n 3
}
run off mlp_nn_linear,mlp 25
run auto mlp_nn_linear,mlp 25
run 32 mlp_nn_linear 15
