# Session 19 attention probe (issue 20: d64 >= 450 at short sequences; causal short sequences, 0.71x / 0.78x
# SDPA cuDNN at 1k in session 9's run and not re-measured since the late rescale became the default).
# What the kernel already does of FlashAttention-3's short-sequence design (docs/chained-dots.md, "Session 19"):
# persistent for non-causal programs, the producer loading the next instance's Q (second slot) and K/V tiles
# (the ring counts on across instances) while the consumers finish and store the current one, and an L2-friendly
# order (one head's query tiles on consecutive CTAs).  Causal programs ran one CTA per instance (no overlap of the
# next instance's loads; the static round-robin persistent kernel was 0.89-0.94x at d128: it dealt the heavy axis
# slowest, so the CTAs running at one time read the K/V of as many heads as there are CTAs).  The new switch:
#   TILEORCH_ATTN_SCHEDULE=snake      persistent for causal programs too; the heavy-first axis fastest (one head's
#                                     query tiles in a row, heaviest first: L2) and each CTA's odd rounds dealt backwards
#   TILEORCH_ATTN_SCHEDULE=snake_lpt  the same with the round-robin order (every head's heaviest tile first: balance)
# (tools/chained_schedule_balance.py models the balance: busiest CTA / mean 1.03 (1k-8k), 1.47 (16k) for snake,
# 1.03 (1k/2k), 1.005 (4k-16k) for snake_lpt; heads per round at 1k: 17 for snake, 132 for snake_lpt)
# A/B in one process per case set (benchmarks/attention_variants.py, SDPA cuDNN beside; each variant compiled and
# launched after the caches are cleared), then the switch's GPU correctness tests.  Writes $OUT/s19attn/*.json.
# Run: CMD="bash benchmarks/session19_attn_probe.sh" bash benchmarks/device_session.sh shell  -> $OUT/s19attn.tgz
S="$OUT/s19attn"; mkdir -p "$S"
# Second call (s19-attn2): causal programs now compile persistent with the snake dealing by default and the launcher
# picks the CTA count from the grid (schedulers/chained_balance.py: busiest CTA / mean of the snake dealing on one CTA
# per SM; above 1.05, e.g. 16k with 128-row tiles: 1.47, one CTA per instance).  Variants (causal only: non-causal
# programs' PTX is unchanged): default (the new default), old (TILEORCH_ATTN_SCHEDULE=off: the one-CTA-per-instance
# kernel, the first call's "default"), sms / total (the new kernel forced onto one CTA per SM / per instance:
# TILEORCH_ATTN_CTAS).  The first call measured (TFLOP/s, d64 / d128): old 232/338 (1k) 370/545 (4k)
# 456/664 (16k); snake on one CTA per SM 288/387, 410/578, 320/473.
# (timeouts add up to 240 s; the tests run last, so the numbers come back even if they are cut; sms / total reuse
# the default's compiled program: the CTA count is a launch-time choice)
CV="default:;old:TILEORCH_ATTN_SCHEDULE=off;sms:TILEORCH_ATTN_CTAS=sms;total:TILEORCH_ATTN_CTAS=total"
for d in 64 128; do
  timeout 75 python3 benchmarks/attention_variants.py --dims $d --seqs 1024,4096,16384 --causal yes --iters 20 \
    --variants "$CV" --out "$S/causal$d" 2>&1 | tee "$S/causal$d.log" | tail -n 4
done
# GPU correctness: the default launch (auto / forced one CTA per SM / per instance at 1k, 16k, 77 keys) bit-identical
# to the round-robin persistent kernel and against the fp32 reference; the snake switches (482 tests in 85 s in the
# first call); causal attention and the samples' forward, which now run the new default
timeout 90 python3 -m pytest -q -p no:cacheprovider -rfE -n 15 tests/gpu/test_attention_programs.py \
  -k "snake or causal_attention or sample_style_attention" 2>&1 | tee "$S/gpu_tests.log" | tail -n 5
tar czf "$OUT/s19attn.tgz" -C "$OUT" s19attn
