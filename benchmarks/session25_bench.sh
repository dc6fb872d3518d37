# Session 25's second device call (after benchmarks/session24_gpu.sh, the tests): the A/B benchmarks of the default
# paths sessions 23-24 changed without a GPU, one process each, vs torch (tileiras only where staged):
#   1. benchmarks/session23_rega.sh   a computed A as WGMMA's register A (default) vs the staged A (the old kernels)
#   2. benchmarks/session24_rowred.sh SIMT reductions without the shared-memory exchange (default) vs with it, and
#                                     the opt-in per-element online softmax (TILEORCH_ONLINE_SOFTMAX=8)
#   3. benchmarks/session24_epidot.sh the second dot on a GEMM's accumulator (GEMM then GEMM) vs its SIMT path, torch
#   4. (SESSION25_EXTRA) the helpers' scripts of this session, each < 120 s, when named
# Run (carry .whl):  CMD="bash benchmarks/session25_bench.sh" bash benchmarks/device_session.sh shell
# Each part's output lands in $OUT (its own .tgz); this prints each part's summary.
for part in benchmarks/session23_rega.sh benchmarks/session24_rowred.sh benchmarks/session24_epidot.sh ${SESSION25_EXTRA:-}; do
  echo "=== $part ($(date -u +%T))"
  timeout ${PART_TIMEOUT:-170} bash "$part" 2>&1 | tail -n ${PART_TAIL:-30}
done
echo "=== done ($(date -u +%T))"
