# Session 13, second device call (warm, right after session13_final.sh; tileiras staged): host time per launch
# (tileorch.cutile.launch / native route / cuda.tile.launch / tileorch.gemm vs torch.matmul) and compile time
# against tileiras 13.4 for the fixed program set (cold, warm, cached relaunch in a fresh process).
# Run: CMD="bash benchmarks/session13_final2.sh" bash benchmarks/device_session.sh shell   -> $OUT/s13final2.tgz
S="$OUT/s13final2"; mkdir -p "$S"
timeout 60 python3 benchmarks/session13_scatter_probe.py 2>&1 | tee "$S/scatter_probe.log" | tail -3
timeout 120 python3 benchmarks/launch_overhead.py --mode gpu --calls 2000 --out "$S/launch" \
  --json "$S/launch_overhead_gpu.json" 2>&1 | tee "$S/launch_overhead.log" | grep -E "^target|wrote" | head -12
timeout ${CT_TIMEOUT:-300} python3 benchmarks/compile_time.py --repeat 2 --tileiras /tmp/tc/nvidia/cu13/bin/tileiras \
  --only gemm_f16 gemm_bias_relu_f16 linear_gelu_bf16 bmm_f16 gemm_fp8_e4m3_scaled attention_fwd_f16 attention_fwd_causal_f16 \
  mlp_chain_f16 softmax_f16 layernorm_bf16 row_sum_f32 --out "$S/ct" 2>&1 | tee "$S/compile_time.log" | tail -n 16
rm -rf "$S/ct/bytecode"
tar czf "$OUT/s13final2.tgz" -C "$OUT" s13final2
