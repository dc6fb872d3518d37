# Session 17 attention probe (issue 20's missed targets: d64 >= 450 at 1k/4k, d128 >= 550 at 1k; the set-2
# decode case below tileiras): the chained kernel's session-17 switches against the defaults, A/B in one
# process (benchmarks/attention_variants.py, SDPA cuDNN beside), then their GPU correctness tests.
#   TILEORCH_ATTN_LATE_RESCALE=1  the second dot's C (acc * alpha) computed behind the next tile's first dot
#                                 (FlashAttention-3's rescale_o placement), not after the iteration's wait
#   TILEORCH_ATTN_SKIP_RESCALE=1  acc * alpha skipped where every alpha of the warp is 1 (vote.sync; exact)
#   TILEORCH_ATTN_LATE_PACK=1     tile j's P packed behind tile j+1's first dot, not after the iteration's wait
#                                 (d64 only: at d128 P in f32 does not fit beside the 64-register accumulator)
#   TILEORCH_ATTN_STAGES=2        K/V ring capped at 2 stages: a persistent d128 kernel gets a second Q slot
# All are bit-identical to the defaults on the PTX emulator (tests/unit/test_chained_s17_switches.py).
# Run: CMD="bash benchmarks/session17_attn_probe.sh" bash benchmarks/device_session.sh shell  -> $OUT/s17attn.tgz
# (at most 355 s of timeouts; no tileiras needed for the A/B, attention.py --set2 uses it when staged)
S="$OUT/s17attn"; mkdir -p "$S"
L=TILEORCH_ATTN_LATE_RESCALE=1; K=TILEORCH_ATTN_SKIP_RESCALE=1; P=TILEORCH_ATTN_LATE_PACK=1
timeout 100 python3 benchmarks/attention_variants.py --dims 64 --seqs 1024,4096 --causal no --iters 20 \
  --variants "default:;late:$L;late_pack:$L,$P;late_pack_skip:$L,$P,$K;skip:$K;all:$L,$P,$K,TILEORCH_ATTN_PEELED_MASKS=1" \
  --out "$S/attn64" 2>&1 | tee "$S/attn64.log" | tail -n 4
timeout 80 python3 benchmarks/attention_variants.py --dims 128 --seqs 1024,4096 --causal no --iters 20 \
  --variants "default:;late:$L;late_skip:$L,$K;stages2:TILEORCH_ATTN_STAGES=2;late_stages2:$L,TILEORCH_ATTN_STAGES=2" \
  --out "$S/attn128" 2>&1 | tee "$S/attn128.log" | tail -n 4
for v in default "$L,$K"; do  # the 16-query decode over an 8k cache (0.93x tileiras)
  tag=$(echo "$v" | tr ',=' '_-')
  ( [ "$v" = default ] || export $(echo "$v" | tr ',' ' ')
    timeout 25 python3 benchmarks/attention.py --set2 attn_spec_decode_tail --iters 20 --out "$S/decode_$tag" ) \
    2>&1 | tee "$S/decode_$tag.log" | tail -n 2
done
# 256-row query tiles (four consumer warp groups, new in session 17) against 128x128 at d64 4k
timeout 30 python3 benchmarks/attention_variants.py --dims 64 --seqs 4096 --causal no --iters 20 --tiles 256x64 \
  --variants "default:" --out "$S/attn64_256x64" 2>&1 | tee "$S/attn64_256x64.log" | tail -n 2
# GPU correctness of the switches: bit-identical to the kernel without them and against the fp32 reference
# (NaN-prefilled outputs), 1024 / 4000 / 77 keys with more instances than SMs, d64/d128, f16/bf16, causal or not
export TILEORCH_QUICK_GPU=1
timeout 90 python3 -m pytest -q -p no:cacheprovider -rfE -n 15 tests/gpu/test_attention_programs.py \
  -k "(short_sequence_switches and (late_pack_skip or late_skip_pingpong or stages2_late)) or 256_row" 2>&1 | tee "$S/gpu_tests.log" | tail -n 5
tar czf "$OUT/s17attn.tgz" -C "$OUT" s17attn
