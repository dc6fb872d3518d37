# Session 40 (issue 21 item 1): GEMMs whose tiles have a unit middle dimension on the tensor-core tier.  One device
# call, < 140 s.
#   [s40 mid3d] tests     tests/gpu/test_mid3d_gpu.py: every tileorch.testing.mid3d_programs program (A, B, A+C, all
#                         three; f16 / bf16 / e4m3; reshape / permute / order=; bias + relu) on ragged shapes against
#                         torch float64, NaN-prefilled, each launch on the TMA/WGMMA kernel (not the SIMT path); the
#                         refusals (rows of no whole 16 bytes, a padded view, a computed middle index) on the SIMT
#                         path with the reason; sweep 6's mm_batch_middle_axis (now on the tensor cores);
#                         review fixes (s40-mid3dfix): sliced / transposed views of A and C (H1), a mid tile through a
#                         permuted view (H2), a second output beside a mid C (M4).
#   [s40 mid3d] seqfirst  benchmarks/mid3d_timing.py: the 3-D program vs its 2-D twin on the same rows vs
#                         torch.matmul, same process (and the per-head form vs torch.bmm on a contiguous copy); exits
#                         non-zero ("[s40 mid3d] FAIL ...") if a 3-D launch left the tensor cores or an error is >= 1e-2.
# Run: bash benchmarks/session40_mid3d.sh
S="$OUT/s40mid3d"; mkdir -p "$S"
if ls .whl/cuda_tile*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
  export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s40mid3d} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee "$S/device.txt" | sed 's/^/[s40 mid3d] /'
git rev-parse --short HEAD 2>/dev/null > "$S/commit.txt"
T0=$(date +%s)
timeout ${TESTS_S:-90} python3 -m pytest -q -rfE --tb=short -p no:cacheprovider -n 8 tests/gpu/test_mid3d_gpu.py \
  tests/gpu/test_user_sweep6_gpu.py::test_mm_batch_middle_axis > "$S/tests.log" 2>&1
echo "[s40 mid3d] tests rc=$? $(( $(date +%s) - T0 )) s: $(tail -n 1 "$S/tests.log")"
grep -E "^(FAILED|ERROR)" "$S/tests.log" | head -12 | cut -c1-400 | sed 's/^/[s40 mid3d] /'
timeout ${TIMING_S:-40} python3 benchmarks/mid3d_timing.py --out "$S/timing.json" 2>&1 | tee "$S/timing.log" \
  | grep -E "^\[s40 mid3d\]|Error" | head -6
echo "[s40 mid3d] timing rc=${PIPESTATUS[0]} $(( $(date +%s) - T0 )) s"
tar czf "$OUT/s40mid3d.tgz" -C "$OUT" s40mid3d && rm -rf "$S"
