# Session 30 (s30-grid): a GEMM-path cuTile program launched with a user grid computes exactly the tiles of the
# programs launched (before: the tier's GEMM kernel walked all of C's tiles whatever the grid; the emulator test
# tests/unit/test_user_grid.py::test_the_kernel_walking_the_launchers_tiles_writes_those_and_no_other shows the old
# full walk writing 39424 elements outside a (1, 3) grid's tiles of mm_tiled_view).
# Runs tests/gpu/test_user_grid_gpu.py: short, exact and long grids of a plain GEMM, a bias + relu epilogue in 2-CTA
# clusters, two operand pairs over one K, the transposed grid, a batched GEMM with the batch on grid axis 0 (short
# along L, M and N), an MLP block whose column loop the kernel runs, a persistent loop, a linear program id (short:
# the SIMT path) and attention, each against torch fp32 with the output NaN-prefilled (the tiles not launched must
# stay NaN).
# What it should show: every test passes (28 cases).  A failure naming "elements written outside" is the old bug
# on that route; one in assert_close a wrong value inside the covered tiles.
# Run: CMD="bash benchmarks/session30_grid.sh" bash benchmarks/device_session.sh shell   -> $OUT/s30grid.tgz
# (one pytest call under a 110 s timeout; the compiles dominate: about 25 distinct kernels)
S="$OUT/s30grid"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
timeout 110 python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_user_grid_gpu.py \
  > "$S/tests.log" 2>&1
echo "[s30 user grid GPU tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20
tail -n 1 "$S/tests.log"
tar czf "$OUT/s30grid.tgz" -C "$OUT" s30grid
