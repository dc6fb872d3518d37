# Session 37 (lead), second device call, < 480 s: the helpers' GPU scripts in one call, shortest first.
#   [k0]      benchmarks/session37_k0.sh: what the chained kernel's per-launch cost K0 is made of (d64 1k);
#   [paged]   benchmarks/session37_paged.sh: paged-KV / decode programs on the chained kernel vs numpy and SDPA;
#   [sweep29] benchmarks/session37_sweep29.sh: sweep 29's GPU twins (fp8 GEMMs run only here).
# Run (carry .whl):  CMD="bash benchmarks/session37_lead2.sh" TAIL=120 bash benchmarks/device_session.sh shell
K0=${K0:-110} bash benchmarks/session37_k0.sh
TEST_TIMEOUT=${TEST_TIMEOUT:-100} BENCH_TIMEOUT=${BENCH_TIMEOUT:-100} bash benchmarks/session37_paged.sh
bash benchmarks/session37_sweep29.sh
