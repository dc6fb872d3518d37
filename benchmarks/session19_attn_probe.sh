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
# (timeouts add up to 375 s; the tests run last, so the numbers come back even if they are cut)
S="$OUT/s19attn"; mkdir -p "$S"
SN=TILEORCH_ATTN_SCHEDULE=snake
# causal: the default (one CTA per instance, heavy first), the late rescale off (the session-17 default never
# measured causal), the round-robin persistent kernel, the two snake schedules
CV="default:;nolate:TILEORCH_ATTN_LATE_RESCALE=0;persist:TILEORCH_ATTN_PERSISTENT=1;snake:$SN;snake_lpt:${SN}_lpt"
timeout 105 python3 benchmarks/attention_variants.py --dims 64 --seqs 1024,4096,16384 --causal yes --iters 20 \
  --variants "$CV" --out "$S/causal64" 2>&1 | tee "$S/causal64.log" | tail -n 4
timeout 105 python3 benchmarks/attention_variants.py --dims 128 --seqs 1024,4096,16384 --causal yes --iters 20 \
  --variants "$CV" --out "$S/causal128" 2>&1 | tee "$S/causal128.log" | tail -n 4
# non-causal: already persistent; snake changes only which CTA runs which instance (expected neutral)
timeout 55 python3 benchmarks/attention_variants.py --dims 64,128 --seqs 1024,4096 --causal no --iters 20 \
  --variants "default:;snake:$SN" --out "$S/noncausal" 2>&1 | tee "$S/noncausal.log" | tail -n 5
# GPU correctness: bit-identical to the round-robin persistent kernel and the fp32 reference (NaN-prefilled),
# 1024 / 4000 / 77 keys with more instances than SMs, d64/d128, f16/bf16, causal or not, three tile shapes;
# each snake switch alone (causal made persistent) against the reference; the cuTile samples' program
timeout 110 python3 -m pytest -q -p no:cacheprovider -rfE -n 15 tests/gpu/test_attention_programs.py \
  -k "snake" 2>&1 | tee "$S/gpu_tests.log" | tail -n 5
tar czf "$OUT/s19attn.tgz" -C "$OUT" s19attn
