# Session 25 (s25-moe) on the GPU, one device call (< 120 s; run from the repository root with the compiler
# installed; results under $OUT): dots whose A rows are gathered (MoE over sorted tokens, router weights, a
# masked ragged tail, embedding rows, paged rows, gathered K).  Today every one of them takes the SIMT path
# (mma.sync) after the tier's located refusal naming the gathered operand and dimension.
#  1. tests/gpu/test_gathered_dot_gpu.py: the six programs against the numpy references of
#     tests/unit/test_gathered_dot_interp.py (NaN-prefilled, ragged, repeated / out-of-order / masked rows) and the
#     MoE program against torch fp32 at 1000 tokens x K 320 x N 200: all should pass;
#  2. benchmarks/gathered_dot.py: the MoE program (kind "simt" today) against torch index_select + one matmul
#     per expert: the baseline a tensor-core gathered-A path has to beat (rel_err ~1e-3, nan_outputs 0).
S="$OUT/s25_moe"; mkdir -p "$S"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
timeout 55 python3 -m pytest -q -p no:cacheprovider -rfE tests/gpu/test_gathered_dot_gpu.py > "$S/gpu_tests.log" 2>&1
echo "tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
timeout 55 python3 benchmarks/gathered_dot.py --iters 20 --shapes 4096x2048x2048x8,8192x4096x1024x16 \
  2>&1 | tee "$S/bench.jsonl" | cut -c1-400
