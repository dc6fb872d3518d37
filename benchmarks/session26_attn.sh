# Session 26 attention A/B (issue 20's open targets: non-causal d64 1k >= 450 TFLOP/s, d128 1k >= 550; session 22 on
# the H200: d64 1k 398.8, d128 1k 542.8).  The new switch (default off; tests/unit/test_chained_kv_ahead.py,
# tests/unit/test_check_chained.py -k ahead, FileCheck prefix AHEAD in tests/filecheck/tileas/tier_chained_dots.mlir):
#   TILEORCH_ATTN_KV_AHEAD=1  a persistent kernel's producer loads each instance's first min(n, stages - 1) K/V tiles
#       before the instance's Q.  With one Q slot (d128 128x128: 3 stages) the producer used to wait for the
#       consumers' release of the current Q and only then issued the next Q *and* its first K/V tiles, so the next
#       instance's first dot waited for Q + K0 + V0 (96 KiB) after the release; now K0/V0 and K1/V1 are in flight
#       while the current instance still runs, and only Q (32 KiB) after it.  Expected: d128 1k (8 key tiles per
#       instance) gains most, d128 4k less; d64 (two Q slots: the next Q is already loaded early) about 1.0x.
# A/B: one process per variant (benchmarks/attention_variants.py, SDPA cuDNN beside in each, output checked against
# SDPA flash), d64/d128 x 1k/4k x causal and not; then the switch's GPU tests (bit-identical to the kernel without
# it and within tolerance of the fp32 reference: d128 128x128, fp16 and bf16, causal and not, 1024 / 4000 / 77 / 1
# keys with more instances than SMs, round-robin and snake order).  Optional (each its own process, after the A/B):
# PROBE256=1 a d64 non-causal run of the 256x64 program tiles (four consumer warp groups; never timed on a GPU),
# PEELED=1 the switch with TILEORCH_ATTN_PEELED_MASKS=1 at 1k non-causal (the SASS of the d128 kernel, ptxas 13.0:
# 475 instructions per warp and interior key tile, 603 for the masked tile 0 every instance runs, ~300 of epilogue
# per instance: at 8 key tiles the per-instance work is ~1/4 of the tiles', at 128 about 2%, which matches the
# 1k / 16k ratio 542.8 / 687.8 = 0.79 of session 22).
# Run: CMD="bash benchmarks/session26_attn.sh" bash benchmarks/device_session.sh shell   -> $OUT/s26attn.tgz
# (timeouts add up to 118 s; +20 s with PROBE256=1, +25 s with PEELED=1; the numbers come first, the tests last)
S="$OUT/s26attn"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
variant() {  # name env timeout [tiles dims seqs causal]
  timeout "$3" python3 benchmarks/attention_variants.py --dims "${5:-64,128}" --seqs "${6:-1024,4096}" \
    --causal "${7:-both}" --tiles "${4:-128x128}" --iters 20 --variants "$1:$2" --out "$S/$1" 2>&1 \
    | tee "$S/$1.log" | tail -n 3
}
variant default "" 45
variant kv_ahead "TILEORCH_ATTN_KV_AHEAD=1" 45
if [ "${PROBE256:-0}" = 1 ]; then
  variant tiles256x64 "" 20 256x64 64 1024,4096 no
fi
if [ "${PEELED:-0}" = 1 ]; then  # with session 15's peeled-mask versioning (1.01x alone at 1k): tile 0 without masks
  variant kv_ahead_peeled "TILEORCH_ATTN_KV_AHEAD=1,TILEORCH_ATTN_PEELED_MASKS=1" 25 128x128 64,128 1024 no
fi
# one table of the variants' TFLOP/s (ratio to default) from the per-process JSON
python3 benchmarks/attention_variants_summary.py "$S" 2>&1 | tee "$S/summary.log"
export TILEORCH_QUICK_GPU=1
# the switch's GPU tests where it applies (head dim 128, 128x128 tiles: one Q slot), round-robin and snake order
mapfile -t IDS < <(timeout 10 python3 -m pytest --collect-only -q -p no:cacheprovider tests/gpu/test_attention_programs.py \
  -k "short_sequence_switches and kv_ahead" 2>/dev/null | grep "::" | grep -F "(128, 128)" | grep -F -- "-128-")
[ "${#IDS[@]}" -gt 0 ] || IDS=(tests/gpu/test_attention_programs.py -k "short_sequence_switches and kv_ahead")
echo "kv_ahead GPU tests: ${#IDS[@]} selected"
timeout 28 python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 12 "${IDS[@]}" > "$S/tests.log" 2>&1
echo "[kv_ahead GPU tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -10
tail -n 1 "$S/tests.log"
tar czf "$OUT/s26attn.tgz" -C "$OUT" s26attn
