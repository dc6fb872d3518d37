# Session 27 s27-mlp on the GPU (one device call, < 120 s; run from the repository root with the compiler installed;
# results under $OUT).  Three switches, all off by default:
#   TILEORCH_EPILOGUE_DOT_TMA_STORE=1  the epilogue dot's loop over N tiles stores C by TMA from shared-memory
#                                      staging (the next N tile's WGMMAs run while the bulk stores drain);
#   TILEORCH_EPILOGUE_DOT_OVERLAP=1    that loop issues each next N tile's WGMMAs before the current tile's store;
#   TILEORCH_EPILOGUE_DOT_STAGES=fit   the K loop's ring as deep as the kernel's own shared memory holds
#                                      (LoRA 128x256: 2 -> 3 stages; the MLP with direct stores: 6 -> 8).
#  1. GPU tests with all three on: tests/gpu/test_epilogue_dot_gpu.py (MLP over several N tiles, nn.Linear
#     weights, LoRA) and tests/gpu/test_cover26_gpu.py's lora_tn256, NaN-prefilled against torch fp32: all pass.
#  2. benchmarks/epilogue_dot.py mlp_nn_linear, one process per variant (torch's two cuBLAS GEMMs in each), at the
#     benchmark shape 8192x4096x64x4096 and 8192x64x64x4096 (K = 64: the second dot and C's store alone) in each
#     of direct (default), tma, tma + overlap, direct + overlap + fit; the direct run also 8192x4096x64x128 (one N
#     tile: the first dot's K loop alone) and 16384x2048x128x2048.  vs_torch at the full shape should rise above
#     session 26's 0.56 where a switch removes the loss; the two phase rows against the full row say which phase
#     loses.
#  3. benchmarks/cover26.py lora_tn256 (and gqa_heads_loop, unchanged by this branch) default, then lora_tn256 with
#     STAGES=fit: session 26 measured LoRA 0.499 ms vs torch 0.235.
# The timeouts add up to 120 s (tests 30; benches 22, 14, 14, 14; two cover26 runs of 13).
S="$OUT/s27_mlp"; mkdir -p "$S"
ON="TILEORCH_EPILOGUE_DOT_TMA_STORE=1 TILEORCH_EPILOGUE_DOT_OVERLAP=1 TILEORCH_EPILOGUE_DOT_STAGES=fit"
env $ON timeout 30 python3 -m pytest -q -p no:cacheprovider -rfE tests/gpu/test_epilogue_dot_gpu.py \
  tests/gpu/test_cover26_gpu.py -k "mlp or several_n_tiles or three_n_tiles or column_tile or lora" \
  > "$S/gpu_tests.log" 2>&1
echo "tests ($ON) rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
bench() {  # $1: a name, $2: the environment, $3: shapes, $4: seconds
  echo "--- $1 ($2)"
  env $2 timeout "$4" python3 benchmarks/epilogue_dot.py --iters 20 --no-simt --no-tileiras --programs mlp_nn_linear \
    --shapes "$3" --summary --out "$S/epilogue_dot_$1.json" > "$S/bench_$1.log" 2>&1
  echo "rc=$?"; grep -E "^(mlp|lowrank|lora)" "$S/bench_$1.log"; grep -iE "error|Traceback" "$S/bench_$1.log" | head -n 3
}
SHAPES=8192x4096x64x4096,8192x64x64x4096
bench direct TILEORCH_EPILOGUE_DOT_TMA_STORE=0 $SHAPES,8192x4096x64x128,16384x2048x128x2048 22
bench tma TILEORCH_EPILOGUE_DOT_TMA_STORE=1 $SHAPES 14
bench tma_ov "TILEORCH_EPILOGUE_DOT_TMA_STORE=1 TILEORCH_EPILOGUE_DOT_OVERLAP=1" $SHAPES 14
bench ov_fit "TILEORCH_EPILOGUE_DOT_OVERLAP=1 TILEORCH_EPILOGUE_DOT_STAGES=fit" $SHAPES 14
cover() {  # $1: a name, $2: the environment, $3: programs
  echo "--- cover26 $1 ($2)"
  env $2 timeout 13 python3 benchmarks/cover26.py --programs "$3" --no-simt --iters 10 --out "$S/cover26_$1.json" \
    > "$S/cover26_$1.log" 2>&1
  echo "rc=$?"; tail -n 3 "$S/cover26_$1.log"
}
cover default TILEORCH_EPILOGUE_DOT_STAGES=plan lora_tn256,gqa_heads_loop
cover fit TILEORCH_EPILOGUE_DOT_STAGES=fit lora_tn256
