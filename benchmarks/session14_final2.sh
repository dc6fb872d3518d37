# Session 14, second final call (warm, tileiras staged): memory-bound kernels vs tileiras 13.4 and torch
# (64 MB .. 1 GB, same process), compile time vs tileiras for the fixed set, host time per launch.
# Run: CMD="bash benchmarks/session14_final2.sh" bash benchmarks/device_session.sh shell   -> $OUT/s14final2.tgz
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl 2>/dev/null
S="$OUT/s14final2"; mkdir -p "$S"
timeout ${MEM_TIMEOUT:-220} python3 benchmarks/memory_bound.py --sizes small,default,large --out "$S/mem" 2>&1 \
  | tee "$S/memory_bound.log" | tail -n 12
timeout ${CT_TIMEOUT:-260} python3 benchmarks/compile_time.py --repeat 2 --tileiras /tmp/tc/nvidia/cu13/bin/tileiras \
  --only gemm_f16 gemm_bias_relu_f16 linear_gelu_bf16 bmm_f16 gemm_fp8_e4m3_scaled attention_fwd_f16 attention_fwd_causal_f16 \
  mlp_chain_f16 softmax_f16 layernorm_bf16 row_sum_f32 --out "$S/ct" 2>&1 | tee "$S/compile_time.log" | tail -n 16
rm -rf "$S/ct/bytecode"
timeout 90 python3 benchmarks/launch_overhead.py --mode gpu --calls 2000 --out "$S/launch" \
  --json "$S/launch_overhead_gpu.json" 2>&1 | tee "$S/launch_overhead.log" | grep -E "^target|wrote" | head -12
timeout 150 python3 benchmarks/attention.py --program branchy --dims 64,128,256 --seqs 4096 --causal both --iters 10 \
  --out "$S/attn_branchy" 2>&1 | tee "$S/attention_branchy.log" | tail -n 8
tar czf "$OUT/s14final2.tgz" -C "$OUT" s14final2
