# Session 27's benchmark call (main with the session's merges; repository root, compiler installed by
# device_session.sh shell; results under $OUT/s27_bench, one process per row set, each with its same-run baseline):
#   1. attention.py, textbook cuTile FlashAttention forward, d64/d128, seq 1k/4k, causal and not, beside SDPA
#      flash/cuDNN (issue 20's targets: d128 1k >= 550, d64 1k >= 450 TFLOP/s)
#   2. attention_variants.py at d64 128x128: the default against TILEORCH_ATTN_S_AHEAD=auto (2 where there is no
#      heavy-first axis), one process per variant
#   3. memory_bound.py: the online softmax programs with the new default exponential (ex2) against
#      TILEORCH_ONLINE_SOFTMAX_EXP=full, softmax / layernorm as controls (issue 21: >= 0.85 of copy)
#   4. epilogue_dot.py: the nn.Linear MLP with the new defaults (TMA store of the N loop, fitted ring) against
#      TILEORCH_EPILOGUE_DOT_TMA_STORE=0 TILEORCH_EPILOGUE_DOT_STAGES=plan; cover26's LoRA tn256 and GQA rows,
#      cover27's two-dot programs, each beside torch
# Run (carry .whl):  CMD="bash benchmarks/session27_bench.sh" bash benchmarks/device_session.sh shell
S="$OUT/s27_bench"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
step() { echo "=== $1 ($(date -u +%T))"; }
step attention
timeout 120 python3 benchmarks/attention.py --dims 64,128 --seqs 1024,4096 --causal both --iters 10 \
  --out "$S/attention" > "$S/attention.log" 2>&1; echo "rc=$?"; tail -n 14 "$S/attention.log"
step s_ahead
for v in "default:" "s_ahead_auto:TILEORCH_ATTN_S_AHEAD=auto"; do
  timeout 30 python3 benchmarks/attention_variants.py --dims 64 --seqs 1024,4096 --causal both --tiles 128x128 \
    --iters 20 --variants "$v" --out "$S/${v%%:*}" > "$S/${v%%:*}.log" 2>&1; echo "${v%%:*} rc=$?"
done
python3 benchmarks/attention_variants_summary.py "$S" 2>&1 | tee "$S/variants_summary.log" | tail -n 6
step memory
ONLINE="cross_entropy_bf16_v4096 cross_entropy_bf16_v32000 logsumexp_f32_v32000 log_softmax_bf16_v32000"
timeout 60 python3 benchmarks/memory_bound.py --no-tileiras --out "$S/memory" --iters 20 --sizes default \
  --only $ONLINE softmax_f16_rows_x1024 layernorm_f16 rmsnorm_f16 --env default --env TILEORCH_ONLINE_SOFTMAX_EXP=full \
  > "$S/memory.log" 2>&1; echo "rc=$?"; grep -E "TB/s|copy" "$S/memory.log" | head -n 20
step mlp
for v in "new:" "old:TILEORCH_EPILOGUE_DOT_TMA_STORE=0 TILEORCH_EPILOGUE_DOT_STAGES=plan"; do
  env ${v#*:} timeout 25 python3 benchmarks/epilogue_dot.py --iters 20 --no-simt --no-tileiras --programs mlp_nn_linear --out "$S/mlp_${v%%:*}.json" \
    --summary > "$S/mlp_${v%%:*}.log" 2>&1; echo "mlp ${v%%:*} rc=$?"; grep -E "vs_torch" "$S/mlp_${v%%:*}.log" | cut -c1-220
done
step cover
timeout 40 python3 benchmarks/cover26.py --programs lora_tn256,gqa_heads_loop --no-simt --iters 10 \
  --out "$S/cover26.json" > "$S/cover26.log" 2>&1; echo "rc=$?"; grep -E "vs_torch" "$S/cover26.log" | cut -c1-240
[ -f benchmarks/cover27.py ] && { timeout 60 python3 benchmarks/cover27.py --no-simt --iters 10 --out "$S/cover27.json" \
  > "$S/cover27.log" 2>&1; echo "rc=$?"; grep -E "vs_torch" "$S/cover27.log" | cut -c1-240; }
step done
tar czf "$OUT/s27_bench.tgz" -C "$OUT" s27_bench
