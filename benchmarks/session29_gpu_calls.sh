# Session 29's device calls, grouped so each stays under the 600 s per-call limit (every step bounded by timeouts).
#   part A: the GPU tests of what this session's default flips touch (TILEORCH_PAIR_STAGES=1, ATTN_CTAS_PER_SM=2,
#           SIMT_PREDICATED_TAILS=1, REMATERIALIZE_FLOAT_LOADS=1, ATOMIC_FENCES=holders: memory-bound programs,
#           cover 26/27, the sweeps with atomics, view atomics, pointer tiles) and s29-gemm2's column-loop MLP
#           (session29_gemm2.sh, <= 120 s), review 29's programs on the hardware (session29_review2.sh, <= 55 s;
#           session29_review.sh, <= 60 s)
#   part B: A/Bs of this session's opt-in switches: attention Q in registers (session29_attn.sh, <= 145 s), long
#           rows (session29_rowred.sh, <= 120 s), one GEMM consumer body (session29_gemmcompile.sh, <= 120 s)
#   part C: ring stages of direct-epilogue GEMMs (session29_small.sh, <= 90 s), two runs per thread for row
#           reductions (session29_compile.sh, <= 100 s)
# Each script says what it should show.
# Run (carry .whl):  CMD="bash benchmarks/session29_gpu_calls.sh A" bash benchmarks/device_session.sh shell
set -u
case "${1:-}" in
  A)
    echo "##### flipped-default GPU tests ($(date -u +%T))"
    files="tests/gpu/test_memory_bound_gpu.py tests/gpu/test_cover26_gpu.py tests/gpu/test_cover27_gpu.py
      tests/gpu/test_view_atomics_gpu.py tests/gpu/test_pointer_tiles_gpu.py tests/gpu/test_cutile_gpu.py"
    for n in 2 3 4 7 9 10 15 17 19 20 21; do files="$files tests/gpu/test_user_sweep${n}_gpu.py"; done
    TILEORCH_QUICK_GPU=1 timeout ${TEST_TIMEOUT:-270} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-14} \
      $files 2>&1 | tail -n 25
    echo "##### flipped-default GPU tests rc=$?"
    parts="review2 review gemm2" ;;
  B) parts="attn rowred gemmcompile" ;;
  C) parts="small compile" ;;
  *) echo "usage: session29_gpu_calls.sh A|B|C" >&2; exit 2 ;;
esac
for p in $parts; do
  echo "##### session29_$p.sh ($(date -u +%T))"
  bash "benchmarks/session29_$p.sh"
  echo "##### session29_$p.sh rc=$?"
done
