# Session 27 attention A/B (issue 20's last open target: non-causal d64 1k >= 450 TFLOP/s; session 26 on the H200:
# 401.4).  Switches (default off; emulated bit-identical to the default kernel: tests/unit/test_chained_s_ahead.py,
# tests/unit/test_chained_s17_switches.py -k next_s):
#   TILEORCH_ATTN_S_AHEAD=1  the pipelined loop issues tile j+1's first dot right behind tile j-1's second dot, before
#       tile j's softmax (the loop carries tile j's complete S).  Default order: tile j's first dot and tile j-1's
#       second dot are issued together and the consumers wait for the first one (~512 tensor-core cycles of both
#       warp groups) before the softmax, so per key tile the tensor core idles through the softmax's tail and the
#       CUDA cores through S.  With it both dots run under the softmax.  Only where two S tiles fit (d64 128x128: 228
#       of 232 registers; d128 refused with a remark).  ptxas 13.0: 168 registers, no spill; SASS +58 instructions
#       per warp and interior key tile (472 -> 530: the carried S copied out of the WGMMA's registers).
#   TILEORCH_ATTN_S_AHEAD=2  the same loop unrolled by two (the two S register sets alternate: 464.5 instructions per
#       warp and interior key tile, 168 registers, no spill; one more copy of the loop body).
#   TILEORCH_ATTN_NEXT_S=2   (session 8's switch, measured 0.93x at d64 before the late rescale was its default; now
#       the late rescale applies with it): the next instance's first dot right behind the last second dot, the
#       epilogue under both.  Not with S_AHEAD (refused with a remark).
# A/B: one process per variant (benchmarks/attention_variants.py, SDPA cuDNN beside each, output checked against SDPA
# flash), d64 1k/4k causal and not, NEXT_S=2 at d64 1k non-causal (S_AHEAD is refused beside NEXT_S: ptxas spilled
# 424-604 B and serialized the WGMMAs); then S_AHEAD's GPU tests at 128x128 tiles (bit-identical to the kernel
# without it and within tolerance of the fp32 reference; d64 applies, d128 is refused; =1, =1 not persistent, =2).
# ptxas 13.0 spills of the measured kernels: none non-causal; causal S_AHEAD=1 16 B (=2: none).
# What it should show: s_ahead / s_ahead2 > 1.0x at d64 (1k and 4k; s_ahead2 >= s_ahead unless the larger loop costs
# instruction-cache misses), next_s2 about 1.0-1.03x at 1k; the tests all passed (fp16, 128x128: 48 cases).
# Run: CMD="bash benchmarks/session27_attn.sh" bash benchmarks/device_session.sh shell   -> $OUT/s27attn.tgz
# (timeouts add up to 135 s; the numbers come first, the tests last)
S="$OUT/s27attn"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
variant() {  # name env timeout [dims seqs causal]
  timeout "$3" python3 benchmarks/attention_variants.py --dims "${4:-64}" --seqs "${5:-1024,4096}" \
    --causal "${6:-both}" --tiles 128x128 --iters 20 --variants "$1:$2" --out "$S/$1" 2>&1 \
    | tee "$S/$1.log" | tail -n 3
}
variant default "" 27
variant s_ahead "TILEORCH_ATTN_S_AHEAD=1" 27
variant s_ahead2 "TILEORCH_ATTN_S_AHEAD=2" 27
variant next_s2 "TILEORCH_ATTN_NEXT_S=2" 12 64 1024 no
python3 benchmarks/attention_variants_summary.py "$S" 2>&1 | tee "$S/summary.log"
export TILEORCH_QUICK_GPU=1
# the switch's GPU tests at 128x128 (where S_AHEAD applies at d64; d128 compiles without it), fp16 and bf16
mapfile -t IDS < <(timeout 10 python3 -m pytest --collect-only -q -p no:cacheprovider tests/gpu/test_attention_programs.py \
  -k "short_sequence_switches and s_ahead" 2>/dev/null | grep "::" | grep -F "(128, 128)" | grep -v bfloat16)
[ "${#IDS[@]}" -gt 0 ] || IDS=(tests/gpu/test_attention_programs.py -k "short_sequence_switches and s_ahead")
echo "s27 attention GPU tests: ${#IDS[@]} selected"
timeout 32 python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 12 "${IDS[@]}" > "$S/tests.log" 2>&1
echo "[s27 attention GPU tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -10
tail -n 1 "$S/tests.log"
tar czf "$OUT/s27attn.tgz" -C "$OUT" s27attn
