# Session 20 attention probe (issue 20's open targets: non-causal d64 1k >= 450 TFLOP/s, d128 1k >= 550; head dim 256).
# Session 19 measured (non-causal, tileorch / cuDNN): d64 1k 400.2 / 429.0, 4k 453.4; d128 1k 543.9 / 603.0, 4k 655.5.
# The new switch (default off; tests/unit/test_chained_pingpong_kernel.py, docs/chained-dots.md "Session 20"):
#   TILEORCH_ATTN_PINGPONG=kernel  FlashAttention-3's ping-pong of the two consumer warp groups in the *persistent*
#       kernel: warp group 1 gives the first turn once per kernel and warp group 0 takes the last hand-over once per
#       kernel, so the turns run on across a CTA's instances (one group's softmax and epilogue overlap the other's
#       WGMMAs, also across the instance boundary).  TILEORCH_ATTN_PINGPONG=1 (per-instance turns) had to drop
#       persistence (the per-instance protocol deadlocks in a loop over instances: tileorch check found it), and
#       measured no gain without it.  `tileorch check` proves the new kernels; the PTX emulator runs them.
# Not a switch, measured on the CPU: the d64 interior tile's softmax is at its floor already (SASS of the 128x128
# kernel, per warp and key tile: 64 FFMA (s * scale - m) + 64 MUFU.EX2 (ptxas moves some to an FFMA polynomial),
# 64 FMNMX, 64 FADD (row sum), 32 F2FP pack, 32 FMUL (rescale), the first HGMMA with a zero accumulator (RZ, !UPT):
# 472 instructions of which 103 are WGMMA issue and descriptor math; no conversion or mask work is left).
# A/B: one process per variant (benchmarks/attention_variants.py --variants "<one>", SDPA cuDNN beside in each, the
# output checked against SDPA flash), same run.  Then head dim 256 through benchmarks/attention.py (fp16, 128x64, 1k and
# 4k, causal and not; tileiras where staged), then the switch's GPU correctness tests.
# Run: CMD="bash benchmarks/session20_attn_probe.sh" bash benchmarks/device_session.sh shell  -> $OUT/s20attn.tgz
# (timeouts add up to 330 s; the numbers come first, the tests last)
S="$OUT/s20attn"; mkdir -p "$S"
PP=TILEORCH_ATTN_PINGPONG=kernel
variant() {  # name env causal(no|yes|both) timeout
  timeout "$4" python3 benchmarks/attention_variants.py --dims 64,128 --seqs 1024,4096 --causal "$3" --iters 20 \
    --variants "$1:$2" --out "$S/$1" 2>&1 | tee "$S/$1.log" | tail -n 9
}
variant default "" both 55
variant pp_kernel "$PP" both 55
variant pp_kernel_plain "$PP,TILEORCH_ATTN_OVERLAP=0" no 35     # FA3's turns without the intra-group overlap
variant pp_kernel_late_pack "$PP,TILEORCH_ATTN_LATE_PACK=1" no 35  # + P packed behind the next first dot (d64)
# head dim 256 (issue 20 asks for it; now in attention.py's default sweep)
timeout 60 python3 benchmarks/attention.py --dims 256 --seqs-256 1024,4096 --causal both --iters 20 --out "$S/d256" \
  2>&1 | tee "$S/d256.log" | tail -n 6
# one table of the variants' TFLOP/s (ratio to default) from the per-process JSON
python3 benchmarks/attention_variants_summary.py "$S" 2>&1 | tee "$S/summary.log"
# GPU correctness: bit-identical to the kernel without the turns and the fp32 reference (more instances than SMs, 1024 /
# 4000 / 77 keys and 1 key, d64/d128, f16/bf16, causal or not, three tile shapes, overlapped and plain loops); the
# samples' forward and the MLP chain with it (a hang here is a turn protocol the checker missed: the timeout ends it)
timeout 120 python3 -m pytest -q -p no:cacheprovider -rfE -n 15 tests/gpu/test_attention_programs.py \
  -k "pingpong_kernel" 2>&1 | tee "$S/gpu_tests.log" | tail -n 5
tar czf "$OUT/s20attn.tgz" -C "$OUT" s20attn
