# Session 13 device probe: (1) the row gathers at 64 MB against tileiras 13.4 under TILEORCH_GATHER_RUNS 2/4/8
# (threads per CTA of a loop-free gather: f32 512/256/128, bf16 256/128/64), small and default sizes;
# (2) attention d128 with the early Q release now the default for one-Q-slot kernels vs TILEORCH_ATTN_EARLY_Q=0.
# Run after stage_tc: CMD="bash benchmarks/session13_probe.sh" bash benchmarks/device_session.sh shell (carry .whl)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
timeout 200 python3 benchmarks/memory_bound.py --only gather_rows_f32 gather_rows_bf16 --sizes small,default \
    --env default --env TILEORCH_GATHER_RUNS=2 --env TILEORCH_GATHER_RUNS=8 --out $OUT/gather 2>&1 | tail -16
timeout 300 python3 benchmarks/attention_variants.py --dims 128 --seqs 1024,4096,16384 --causal no --iters 20 \
  --variants 'default:;earlyq0:TILEORCH_ATTN_EARLY_Q=0' --out $OUT/att 2>&1 | tail -8
