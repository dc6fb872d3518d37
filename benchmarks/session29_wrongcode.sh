# s29-wrongcode's GPU check (< 120 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session29_wrongcode.sh" bash benchmarks/device_session.sh shell
# Correctness only (no timing): the SIMT prefetching loops' new trip guard (unrolled_trips.py: j*step < ub - iv
# unsigned; a run-time step's trip loop counted in i64) changed the PTX of the row/column sums and five user
# programs; the GPU tests of those kernels, against torch, with the session's new defaults exported, once at the
# default prefetch and once with TILEORCH_PREFETCH_DEPTH=3.  Expected: all pass (both runs).
# Writes $OUT/s29_wrongcode/{tests.log,tests_depth3.log}; prints the summaries.
S="$OUT/s29_wrongcode"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
export TILEORCH_PAIR_STAGES=1 TILEORCH_ATTN_CTAS_PER_SM=2 TILEORCH_SIMT_PREDICATED_TAILS=1 \
  TILEORCH_REMATERIALIZE_FLOAT_LOADS=1 TILEORCH_ATOMIC_FENCES=holders
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$S/device.txt"
K="row_sum or col_sum or one_or_two_iterations or split_over_a_cluster"
timeout ${TEST_TIMEOUT:-50} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-8} \
  tests/gpu/test_memory_bound_gpu.py -k "$K" > "$S/tests.log" 2>&1
echo "GPU tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/tests.log" | tail -n 8
TILEORCH_PREFETCH_DEPTH=3 timeout ${TEST_TIMEOUT:-50} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-8} \
  tests/gpu/test_memory_bound_gpu.py -k "$K" > "$S/tests_depth3.log" 2>&1
echo "GPU tests (PREFETCH_DEPTH=3) rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/tests_depth3.log" | tail -n 8
