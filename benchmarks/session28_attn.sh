# Session 28 attention A/B (issue 20: non-causal d64 1k >= 450 TFLOP/s, d128 1k >= 550 with margin; session 27's
# H100: 406.9 and 548.3).
# Switch (default off; tests/unit/test_chained_stagger.py: emulated bit-identical to the default kernel, tileorch check
# proves the same protocol, no spills, no BRA.DIV in the key-tile loop):
#   TILEORCH_ATTN_STAGGER=C  in the persistent kernel, consumer warp group w sleeps (64 ns nanosleep turns) until lane 0
#       has seen w x C cycles of %clock64 pass after its first instance's Q wait.  Both groups read every K/V tile, so they run
#       in step and each instance's serial parts (tile 0's S and softmax with no second dot beside them, the last
#       second dot, the epilogue) idle the tensor core for both at once: session 27's 1k/4k numbers put ~1.6 key
#       tiles of time per instance there at d64.  Started apart, one group's serial parts run beside the other's key
#       tiles.  The skew is a start offset (the K/V ring bounds it afterwards); a probe for a barrier protocol.
#       C = 2500 is about one d64 key tile (1k: 8 tiles of ~2700 cycles per instance at 406.9 TFLOP/s).
# A/B: one process per variant (benchmarks/attention_variants.py: tileorch under the switch, SDPA cuDNN beside it,
# output checked against SDPA flash), the default twice (first and last) so that the noise is visible:
#   default, stagger (C = 2500: about one d64 key tile), default2: non-causal d64/d128 x 1k/4k (default and stagger
#   also causal d64/d128 1k); stagger1k (1200: about half a key tile, the groups' softmax and dots interleaved like
#   FlashAttention-3's ping-pong, but free-running) and peeled (TILEORCH_ATTN_PEELED_MASKS=1, an older switch: tile 0
#   without mask math where its masks hold; tools/chained_sass_counts.py --seq 1024: per warp and instance outside
#   the key-tile loop 926 -> 835 SASS instructions at d64, 1198 -> 1085 at d128; the H200 measured 1.01-1.02x,
#   attention_variants_d64_2026-12-04-s15.json and attention_variants_d128_2026-12-03e.json, never made default) at
#   d64/d128 1k non-causal.  Then the switch's
#   GPU tests (bit-identical to the kernel without it, within tolerance of the fp32 reference), d64 and d128, fp16,
#   128x128 tiles.
# What it should show: if out-of-step groups hide the per-instance serial parts, stagger / default > 1.0 at 1k beyond
# the default / default2 spread (4k gains less: 4x the key tiles per instance); if they also interleave the groups'
# softmax (MUFU) and dots (tensor core) inside the loop, stagger1k > 1.0 at 1k and 4k; peeled about 1.01-1.02; the
# tests all pass.
# Run: CMD="bash benchmarks/session28_attn.sh" bash benchmarks/device_session.sh shell   -> $OUT/s28attn.tgz
# (timeouts add up to 145 s; each variant's JSON is written after every case, so a cut run keeps what it finished;
# the numbers come first, the tests last)
S="$OUT/s28attn"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
variant() {  # name env timeout dims seqs causal
  timeout "$3" python3 benchmarks/attention_variants.py --dims "$4" --seqs "$5" --causal "$6" --tiles 128x128 \
    --iters 20 --variants "$1:$2" --out "$S/$1_$6" 2>&1 | tee "$S/$1_$6.log" | tail -n 2
}
variant default "" 22 64,128 1024,4096 no
variant default "" 11 64,128 1024 yes
variant stagger "TILEORCH_ATTN_STAGGER=2500" 22 64,128 1024,4096 no
variant stagger "TILEORCH_ATTN_STAGGER=2500" 11 64,128 1024 yes
variant stagger1k "TILEORCH_ATTN_STAGGER=1200" 11 64,128 1024 no
variant peeled "TILEORCH_ATTN_PEELED_MASKS=1" 11 64,128 1024 no
variant default2 "" 22 64,128 1024,4096 no
python3 benchmarks/attention_variants_summary.py "$S" 2>&1 | tee "$S/summary.log"
export TILEORCH_QUICK_GPU=1
mapfile -t IDS < <(timeout 10 python3 -m pytest --collect-only -q -p no:cacheprovider tests/gpu/test_attention_programs.py \
  -k "short_sequence_switches and stagger" 2>/dev/null | grep "::" | grep -F "(128, 128)" | grep -v bfloat16)
[ "${#IDS[@]}" -gt 0 ] || IDS=(tests/gpu/test_attention_programs.py -k "short_sequence_switches and stagger")
echo "s28 attention GPU tests: ${#IDS[@]} selected"
timeout 25 python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 12 "${IDS[@]}" > "$S/tests.log" 2>&1
echo "[s28 attention GPU tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -10
tail -n 1 "$S/tests.log"
tar czf "$OUT/s28attn.tgz" -C "$OUT" s28attn
