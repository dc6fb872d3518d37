# Session 15, first device call (no tileiras): row-gather vector runs per thread and the chained kernel's
# reduction/peeling switches at the shapes where issue 20/21 targets are missed, each against the defaults
# in the same process.
# Run: CMD="bash benchmarks/session15_probe.sh" bash benchmarks/device_session.sh shell   -> $OUT/s15probe.tgz
S="$OUT/s15probe"; mkdir -p "$S"
timeout 150 python3 benchmarks/memory_bound.py --only gather_rows_f32 gather_rows_bf16 --sizes small,default \
  --no-tileiras --env default --env TILEORCH_GATHER_RUNS=8 --env TILEORCH_GATHER_RUNS=2 --out "$S/mem" 2>&1 \
  | tee "$S/memory_bound.log" | grep -i "gather" | head -20
timeout 200 python3 benchmarks/attention_variants.py --dims 64 --seqs 1024,4096 --causal no --iters 20 \
  --variants 'default:;tree:TILEORCH_ATTN_TREE_REDUCE=1;peeled:TILEORCH_ATTN_PEELED_MASKS=1;both:TILEORCH_ATTN_TREE_REDUCE=1,TILEORCH_ATTN_PEELED_MASKS=1' \
  --out "$S/attn64" 2>&1 | tee "$S/attn64.log" | tail -n 12
timeout 150 python3 benchmarks/attention_variants.py --dims 128 --seqs 1024,4096 --causal no --iters 20 \
  --variants 'default:;peeled:TILEORCH_ATTN_PEELED_MASKS=1;tree:TILEORCH_ATTN_TREE_REDUCE=1' \
  --out "$S/attn128" 2>&1 | tee "$S/attn128.log" | tail -n 10
tar czf "$OUT/s15probe.tgz" -C "$OUT" s15probe
