# Session 13 attention probe: head dim 64, non-causal, 1k/4k/16k: the defaults (ROW_DIV, EXP2_FMA 16, persistent with
# two Q slots) against the next instance's first dot issued before this one's epilogue (TILEORCH_ATTN_NEXT_S=1 / =2,
# measured 1.00/1.02/1.025x on 2026-12-02 before ROW_DIV was the default), SDPA cuDNN in the same process; twice.
# Run: CMD="bash benchmarks/session13_attention_probe.sh" bash benchmarks/device_session.sh shell (carry .whl)
for rep in 1 2; do
timeout 240 python3 benchmarks/attention_variants.py --dims 64 --seqs 1024,4096,16384 --causal no --iters 20 \
  --variants 'default:;ns1:TILEORCH_ATTN_NEXT_S=1;ns2:TILEORCH_ATTN_NEXT_S=2' --out $OUT/att$rep 2>&1 | tail -4
done
