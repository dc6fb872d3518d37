# Session 25 s25-spills on the GPU (one device call, < 90 s; run from the repository root with the compiler
# installed; results under $OUT).  The spills session 25's run printed for mlp_nn_linear / lora (124 B at 255
# registers, 3768 B at 168) are the SIMT comparison kernels' (schedule="simt"), not the GEMM tier's (0 spills on
# the CPU's ptxas 13.0; tests/unit/test_epilogue_dot_programs.py::test_epilogue_dot_default_compile_assembles_*):
#  1. the benchmark at tn 128 with each variant's spills in its summary: expect tileorch_simt_spills=... on both
#     rows and no tileorch_spills (the GEMM kernel the "tileorch" time is of assembles without spills here too);
#  2. the nn.Linear MLP at tn 128 against tn 256 (the GEMM tier, no SIMT variant): the program recomputes its
#     first dot (128 x 64 x K) once per tn-wide N tile, 32 times at N 4096 and tn 128, 16 at tn 256; if that
#     recompute is what its 0.375 ms is, tn 256 takes about half the time.
S="$OUT/s25_spills"; mkdir -p "$S"
timeout 45 python3 benchmarks/epilogue_dot.py --iters 20 --programs mlp_nn_linear,lora --shapes 8192x4096x64x4096 \
  --summary --out "$S/spills_tn128.json" > "$S/bench_tn128.log" 2>&1
echo "tn128 rc=$?"; grep -E "^(mlp_nn_linear|lora) " "$S/bench_tn128.log" | sed 's/ FileNotFoundError.*//'
timeout 30 python3 benchmarks/epilogue_dot.py --iters 20 --programs mlp_nn_linear --shapes 8192x4096x64x4096 \
  --tn 256 --no-simt --summary --out "$S/spills_tn256.json" > "$S/bench_tn256.log" 2>&1
echo "tn256 rc=$?"; grep -E "^mlp_nn_linear " "$S/bench_tn256.log" | sed 's/ FileNotFoundError.*//'
