# Session 28 had no device: its helpers' GPU checks, grouped for the next session's first two device calls
# (each group stays under the 600 s per-call limit; every script bounds its own steps with timeouts).
#   part A: attention stagger A/B (session28_attn.sh, <= 145 s), pair stages / two CTAs per SM A/B
#           (session28_gemm2.sh, <= 165 s), review 28's GPU tests (session28_review.sh, <= 60 s)
#   part B: predicated SIMT tails A/B (session28_compile.sh, <= 115 s), launch and relaunch
#           (session28_launch.sh, <= 110 s), atomic fences / float-load rematerialization / early prefetch A/B
#           (session28_rowred.sh, <= 110 s; stage tileiras first for the rope rows)
# Each script says what it should show; the defaults flip only where its A/B says so.
# Run (carry .whl):  CMD="bash benchmarks/session28_gpu_calls.sh A" bash benchmarks/device_session.sh shell
set -u
case "${1:-}" in
  A) parts="attn gemm2 review" ;;
  B) parts="compile launch rowred" ;;
  *) echo "usage: session28_gpu_calls.sh A|B" >&2; exit 2 ;;
esac
for p in $parts; do
  echo "##### session28_$p.sh ($(date -u +%T))"
  bash "benchmarks/session28_$p.sh"
  echo "##### session28_$p.sh rc=$?"
done
