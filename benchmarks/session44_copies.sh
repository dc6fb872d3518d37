# Session 44, s44-copies: the launcher's launch-time copies after their unification (launchers/launch_copies.py: one
# scratch pool per role, layout and stream; a K vector's aligned copy now its stream's scratch, its bound launches
# homed there; the prepared launches keyed by the K vectors' strides) on the GPU: the new GPU twins
# (tests/gpu/test_launch_copies_s44_gpu.py) and the launch-copy GPU tests of sessions 42-43 (the K vector copies, the
# packed scratch C, the chained padded copy of K^T, the K-major copies and their stream ordering, the two-stream
# replay of bound launches, sweep 6's transposed views, session 42's strided / broadcast batch twins); < 120 s.
# Output: $OUT/s44copies.tgz (the pytest logs).  Run (carry .whl): bash benchmarks/session44_copies.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s44copies"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | sed 's/^/[s44 copies] /'
T0=$(date +%s)
timeout ${TESTS_S:-80} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 4 \
  tests/gpu/test_launch_copies_s44_gpu.py tests/gpu/test_launch_copies_s43_gpu.py tests/gpu/test_k_major_copy_gpu.py \
  tests/gpu/test_launch_copy_ordering_gpu.py tests/gpu/test_k_vector_tma_gpu.py::test_b_times_k_row_vector_tma \
  tests/gpu/test_user_sweep6_gpu.py::test_mm_batched_strided_batch_on_transposed_views > "$S/gpu_tests.log" 2>&1
echo "[s44 copies] tests rc=$? $(( $(date +%s) - T0 )) s: $(tail -n 1 "$S/gpu_tests.log")"
grep -E "^(FAILED|ERROR)" "$S/gpu_tests.log" | head -12 | cut -c1-300 | sed 's/^/[s44 copies] /'
T1=$(date +%s)  # session 42's launch twins (strided / broadcast batches), as benchmarks/session42_launchpath.sh
timeout ${TWINS_S:-35} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 4 \
  tests/gpu/test_user_sweep26_gpu.py tests/gpu/test_user_sweep28_gpu.py tests/gpu/test_user_sweep31_gpu.py \
  -k "broadcast or expanded or strided_batch" > "$S/gpu_twins42.log" 2>&1
echo "[s44 copies] s42 twins rc=$? $(( $(date +%s) - T1 )) s: $(tail -n 1 "$S/gpu_twins42.log")"
grep -E "^(FAILED|ERROR)" "$S/gpu_twins42.log" | head -8 | cut -c1-300 | sed 's/^/[s44 copies] /'
tar czf "$OUT/s44copies.tgz" -C "$OUT" s44copies && rm -rf "$S"
