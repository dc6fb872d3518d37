# Session 37 (lead), second device call, < 440 s: the helpers' GPU scripts in one call, correctness first.
#   [paged tests] tests/gpu/test_attnpaged37_gpu.py: paged-KV / decode programs on the chained kernel vs numpy/SDPA;
#   [sweep29]     benchmarks/session37_sweep29.sh: sweep 29's GPU twins (fp8 GEMMs run only here);
#   [attnforms]   the exp and plain groups of benchmarks/session37_attnforms.sh (before/after the new switches);
#   [k0]          benchmarks/session37_k0.sh: what the chained kernel's per-launch cost K0 is made of (d64 1k).
# Run (carry .whl):  CMD="bash benchmarks/session37_lead2.sh" TAIL=120 bash benchmarks/device_session.sh shell
TEST_TIMEOUT=${TEST_TIMEOUT:-60} BENCH_TIMEOUT=1 bash benchmarks/session37_paged.sh 2>&1 | grep -v "^\[s37 paged\]"
SWEEP29_TIMEOUT=${SWEEP29_TIMEOUT:-90} bash benchmarks/session37_sweep29.sh
O="$OUT/s37attnforms"; mkdir -p "$O"
for g in exp plain; do
  timeout 65 python3 benchmarks/session37_attnforms.py --group "$g" --iters 20 > "$O/$g.jsonl" 2> "$O/$g.err"
  echo "[attnforms $g] rc=$?"; cut -c1-300 "$O/$g.jsonl"; tail -n 2 "$O/$g.err"
done
[ -n "${WITH_K0:-}" ] && K0=${K0:-70} bash benchmarks/session37_k0.sh
