# Session 24, sweep 19 (issue 21 item 1: every cuda_tile op on programs without a dot) on the GPU: no timing, only
# correctness.  tests/gpu/test_user_sweep19_gpu.py runs the 57 programs of tileorch.testing.user_programs19 against
# the numpy references of tests/unit/test_user_sweep19_interp.py (NaN / sentinel prefilled buffers with a guarded
# tail) and six kernels against torch on ragged sizes (1M elements; a chained sum over acquire / release
# flags across 300 programs); then the programs whose view loads / stores carry
# a memory order (PTX changed by this session's ordered_views.py: ld.acquire / bar.sync + fence.release + st.relaxed
# instead of plain ld.global / st.global): sweep 10's acquire_flag_release, sweep 17's chained scan (a flag spin
# and an ACQUIRE carry load across 300 instances), test_user_sweep.py's acquire_release.
# Expect: every test passes (the 1 x 65536 int32 row spills 272 B in ptxas: slow, still correct).
# Run: CMD="bash benchmarks/session24_sweep19.sh" bash benchmarks/device_session.sh shell   (about 90 s)
S="$OUT/s24sweep19"; mkdir -p "$S"
timeout 100 python3 -m pytest -q -x tests/gpu/test_user_sweep19_gpu.py -p no:cacheprovider 2>&1 | tee "$S/sweep19.log" \
  | tail -n 5
timeout 45 python3 -m pytest -q tests/gpu/test_user_sweep10_gpu.py tests/gpu/test_user_sweep17_gpu.py \
  tests/gpu/test_user_sweep_gpu.py -p no:cacheprovider -k "acquire or chained_scan" 2>&1 | tee "$S/ordered.log" \
  | tail -n 3
echo "summary: sweep19 $(tail -n 1 "$S/sweep19.log"); ordered views $(tail -n 1 "$S/ordered.log")"
