# Session 39 (issue 21 item 1): outputs that cannot be written correctly, on the GPU.  One device call, < 150 s.
#   [s39 issue21] written  tests/gpu/test_written_args_gpu.py: refusals launch nothing (shifted overlap, expand()-ed
#                          output), in place on fresh tensors for 300 calls (re-pointed), column halves of one buffer,
#                          atomics into an expanded accumulator; against torch float64, NaN-prefilled.
#   [s39 issue21] bound    tests/gpu/test_bound_launches_gpu.py + test_cutile_gpu.py (re-pointing, in-place launches,
#                          the C memo's keys: session 39 changed both).
# Run: bash benchmarks/session39_issue21.sh
S="$OUT/s39issue21"; mkdir -p "$S"
if ls .whl/cuda_tile*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
  export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s39issue21} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
timeout ${WRITTEN_S:-60} python3 -m pytest -q -rf -p no:cacheprovider tests/gpu/test_written_args_gpu.py > "$S/written.log" 2>&1
echo "[s39 issue21] written rc=$?"; tail -n 3 "$S/written.log" | sed 's/^/[s39 issue21] written /'
grep -E "^(FAILED|ERROR)|Error:" "$S/written.log" | head -8 | sed 's/^/[s39 issue21] /'
timeout ${BOUND_S:-75} python3 -m pytest -q -rf -n 8 -p no:cacheprovider tests/gpu/test_bound_launches_gpu.py \
  tests/gpu/test_cutile_gpu.py > "$S/bound.log" 2>&1
echo "[s39 issue21] bound rc=$?"; tail -n 3 "$S/bound.log" | sed 's/^/[s39 issue21] bound /'
grep -E "^(FAILED|ERROR)" "$S/bound.log" | head -8 | sed 's/^/[s39 issue21] /'
tar czf "$OUT/s39issue21.tgz" -C "$OUT" s39issue21 && rm -rf "$S"
