# Session 25 (s25-moe) on the GPU, one device call (< 120 s; run from the repository root with the compiler
# installed; results under $OUT): dots whose A rows are gathered (MoE over sorted tokens, router weights, a
# masked ragged tail, embedding rows, paged rows, a feature-major gather through a transpose): the GEMM tier's
# gathered A (the consumers load WGMMA's register A from global memory; the producer loads only B).  Never run on
# a GPU before this script: the CPU checks are the PTX emulator (tests/unit/test_gathered_dot_emulated.py).
#  1. tests/gpu/test_gathered_dot_gpu.py: the six programs against the numpy references of
#     tests/unit/test_gathered_dot_interp.py (NaN-prefilled, ragged, repeated / out-of-order / masked rows) and the
#     MoE program against torch fp32 at 1000 tokens x K 320 x N 200: all should pass;
#     Also sweep 7's im2col convolution, sweep 14's and 16's gathered MoE (now on the tier) in their sweeps' files.
#  2. benchmarks/gathered_dot.py: the MoE program, the tier (tier_kind "gemm") and the SIMT path
#     (TILEORCH_GATHERED_A=simt, simt_kind "simt") in one process, against torch index_select + one matmul per
#     expert, at 64x64x64 and 128x128x64 program tiles (both without spills in ptxas): rel_err ~1e-3 and
#     nan_outputs 0 for both; tier_ms vs simt_ms is the A/B of the new default (not measured yet).
S="$OUT/s25_moe"; mkdir -p "$S"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
timeout 55 python3 -m pytest -q -p no:cacheprovider -rfE tests/gpu/test_gathered_dot_gpu.py \
  "tests/gpu/test_user_sweep7_gpu.py::test_conv2d_implicit_gemm_nhwc" \
  "tests/gpu/test_user_sweep14_gpu.py::test_moe_gather_token_rows" \
  "tests/gpu/test_user_sweep16_gpu.py::test_moe_gathered_rows_expert_table" > "$S/gpu_tests.log" 2>&1
echo "tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
timeout 60 python3 benchmarks/gathered_dot.py --iters 20 --shapes 4096x2048x2048x8 --tiles 64x64x64,128x128x64 \
  2>&1 | tee "$S/bench.jsonl" | cut -c1-400
