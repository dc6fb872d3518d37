# Session 32 (s32-noticed): issue 22's leftovers on the GPU (benchmarks/session32_noticed.py): directed add / sub /
# mul of f32 and f64 bit for bit against rationals rounded that way; x / s by a scalar (the shared-reciprocal
# sequence, the hardware's rcp.approx.ftz) bit for bit against numpy across the range test's bounds; rows with
# ct.ArrayAnnotation(static_stride_dims=...) on two views of different row strides against torch.  Then the
# two-thread override test and the emulated tests of the branch (CPU, as a smoke check on the device's stack).
# Should show: every line "ok", "all ok", and the pytest line all passed.
# Run (carry .whl):  CMD="bash benchmarks/session32_noticed.sh" bash benchmarks/device_session.sh shell
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout 150 python3 benchmarks/session32_noticed.py 2>&1 | tail -n 120
echo "[noticed] rc=${PIPESTATUS[0]}"
timeout 80 python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/unit/test_settings_overridden_threads.py \
  tests/unit/test_static_strides_emulated.py 2>&1 | tail -n 4
