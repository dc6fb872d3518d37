# Session 25, sweep 21 (issue 21 item 1: fused kernels of real models without a dot) on the GPU: no timing, only
# correctness.  tests/gpu/test_user_sweep21_gpu.py runs the 45 programs of tileorch.testing.user_programs21 against
# the numpy references of tests/unit/test_user_sweep21_interp.py (NaN / sentinel prefilled buffers with a guarded
# tail) and four kernels against torch on larger ragged shapes (MoE counts / slots by atomic_add's old value under
# contention, a guarded bincount at 1M ids, RMSNorm + residual + e4m3 with an amax by atomic_max on the f32 bits,
# int8 rounding modes at 4096 tokens).  All 45 passed on the CPU's SIMT interpreter and PTX emulator (session 25).
# Expect: every test passes.
# Run: CMD="bash benchmarks/session25_sweep21.sh" bash benchmarks/device_session.sh shell   (about 90 s)
S="$OUT/s25sweep21"; mkdir -p "$S"
timeout 110 python3 -m pytest -q tests/gpu/test_user_sweep21_gpu.py -p no:cacheprovider -rfE 2>&1 | tee "$S/sweep21.log" \
  | tail -n 8
echo "summary: sweep21 $(tail -n 1 "$S/sweep21.log")"
