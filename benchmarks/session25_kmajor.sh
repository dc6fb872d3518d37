# Session 25 s25-kmajor on the GPU (one device call, < 120 s; run from the repository root with the compiler
# installed; results under $OUT): the epilogue dot with E K-major (nn.Linear's [N, H] second weight) and LoRA's
# three dots on the GEMM kernel (new in session 25: CPU-emulated only until this runs).
#  1. tests/gpu/test_epilogue_dot_gpu.py (torch fp32 references, NaN-prefilled, ragged M and K; session 24's cases
#     and session 25's: E by transpose / transposed view, both MLP weights in nn.Linear's layout f16 + bf16, LoRA
#     N-major and PEFT-layout bf16 rank 40) and sweep 18's mlp_relu_sq_chain_wt (now on the GEMM tier): all pass;
#  2. benchmarks/epilogue_dot.py --programs mlp_nn_linear,lora: tileorch (tileorch_kind "gemm") against the same
#     program on tileorch's SIMT path (where both ran before), tileiras and torch (cuBLAS F.linear); rel_err ~1e-3.
S="$OUT/s25_kmajor"; mkdir -p "$S"
timeout 60 python3 -m pytest -q -p no:cacheprovider -rfE tests/gpu/test_epilogue_dot_gpu.py \
  "tests/gpu/test_user_sweep18_gpu.py::test_mlp_relu_sq_chain_wt" > "$S/gpu_tests.log" 2>&1
echo "tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
timeout 55 python3 benchmarks/epilogue_dot.py --iters 20 --programs mlp_nn_linear,lora --shapes 8192x4096x64x4096 \
  --summary --out "$S/epilogue_dot_s25.json" 2>&1 | tee "$S/bench.log"
