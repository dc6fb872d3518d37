# Session 12 attention probe: TILEORCH_ATTN_EARLY_Q on every d64/d128 shape (1k/4k/16k, causal and not),
# SDPA cuDNN in the same process.  Run: CMD="bash benchmarks/session12_probe.sh" bash benchmarks/device_session.sh shell
# (carry .whl).  Results: $OUT/attention_variants.json (kept as benchmarks/results/attention_variants_earlyq_2026-12-03g.json).
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
timeout 420 python3 benchmarks/attention_variants.py --dims 64,128 --seqs 1024,4096,16384 --causal both --iters 20 \
  --variants 'default:;earlyq:TILEORCH_ATTN_EARLY_Q=1' --out $OUT 2>&1 | tail -16
