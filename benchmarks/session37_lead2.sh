# Session 37 (lead), second device call, < 420 s: the helpers' GPU scripts in one call, correctness first.
#   [paged tests] tests/gpu/test_attnpaged37_gpu.py: paged-KV / decode programs on the chained kernel vs numpy/SDPA;
#   [sweep29]     benchmarks/session37_sweep29.sh: sweep 29's GPU twins (fp8 GEMMs run only here);
#   [k0]          benchmarks/session37_k0.sh: what the chained kernel's per-launch cost K0 is made of (d64 1k);
#   [paged bench] the paged/decode speed lines beside SDPA (session37_paged.sh's second step).
# Run (carry .whl):  CMD="bash benchmarks/session37_lead2.sh" TAIL=120 bash benchmarks/device_session.sh shell
TEST_TIMEOUT=${TEST_TIMEOUT:-90} BENCH_TIMEOUT=1 bash benchmarks/session37_paged.sh 2>&1 | grep -v "^\[s37 paged\] bench"
SWEEP29_TIMEOUT=${SWEEP29_TIMEOUT:-130} bash benchmarks/session37_sweep29.sh
K0=${K0:-90} bash benchmarks/session37_k0.sh
S="$OUT/s37paged"; export TILEORCH_CACHE_DIR=/tmp/tileorch-cache
timeout ${BENCH_TIMEOUT:-90} python3 benchmarks/session37_paged.py --iters 20 --out "$S/bench.json" > "$S/bench.log" 2>&1
echo "[paged bench] rc=$?"; grep -E '^\{' "$S/bench.log" | cut -c1-400
