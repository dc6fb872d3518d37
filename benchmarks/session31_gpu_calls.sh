# Session 31's device calls: each part is benchmarks/session31_<part>.sh (each says what it should show), every step
# bounded by timeouts so a call stays under the 600 s limit.
# Run (carry .whl):  CMD="bash benchmarks/session31_gpu_calls.sh rowcap bulkfill" bash benchmarks/device_session.sh shell
set -u
for p in "$@"; do
  [ -f "benchmarks/session31_$p.sh" ] || { echo "##### session31_$p.sh missing"; continue; }
  echo "##### session31_$p.sh ($(date -u +%T))"
  timeout ${PART_TIMEOUT:-240} bash "benchmarks/session31_$p.sh"
  echo "##### session31_$p.sh rc=$?"
done
