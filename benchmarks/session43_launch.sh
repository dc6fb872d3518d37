# Session 43, s43-launch: launches that left the fast path, on the GPU: a misaligned K vector copied into an aligned
# scratch before each launch (the TMA kernel on the copy; timed beside the aligned launch, torch and session 42's
# global-load kernel), a strided C batch and transposed-view batches stored through a packed scratch C (timed beside
# stacked arrays and torch.bmm), an overlapping input batch (correctness), attention with K^T rows of 4100 bytes on a
# padded copy (timed beside 2048 keys and torch sdpa): benchmarks/launchpath_check.py --s43 (the
# path each launch ran, vs torch fp32 with NaN-prefilled outputs, JSON); then the GPU tests of those launches
# (tests/gpu/test_launch_copies_s43_gpu.py, sweep 6's transposed views, the K-vector tests through the shared
# helper); < 150 s.
# Output: $OUT/s43launch.tgz (JSON and logs).  Run (carry .whl): bash benchmarks/session43_launch.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s43launch"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | sed 's/^/[s43 launch] /'
T0=$(date +%s)
timeout ${CHECK_S:-100} python3 benchmarks/launchpath_check.py --s43 --out "$S/launch.json" > "$S/launch.log" 2>&1
echo "[s43 launch] check rc=$? $(( $(date +%s) - T0 )) s"; grep -E "^\[s43 launch\]" "$S/launch.log" | head -14
tail -n 5 "$S/launch.log" | grep -v "^\[s43" | cut -c1-300 | sed 's/^/[s43 launch] check tail: /'
T1=$(date +%s)
timeout ${TESTS_S:-40} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_launch_copies_s43_gpu.py tests/gpu/test_k_vector_tma_gpu.py::test_b_times_k_row_vector_tma \
  tests/gpu/test_user_sweep6_gpu.py::test_mm_batched_strided_batch_on_transposed_views \
  tests/gpu/test_user_sweep6_gpu.py::test_mm_batched_strided_batch_contiguous > "$S/gpu_tests.log" 2>&1
echo "[s43 launch] tests rc=$? $(( $(date +%s) - T1 )) s: $(tail -n 1 "$S/gpu_tests.log")"
grep -E "^(FAILED|ERROR)" "$S/gpu_tests.log" | head -12 | cut -c1-300 | sed 's/^/[s43 launch] /'
tar czf "$OUT/s43launch.tgz" -C "$OUT" s43launch && rm -rf "$S"
