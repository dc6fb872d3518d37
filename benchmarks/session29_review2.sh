# Session 29's review 2 GPU check (repository root, compiler installed; results under $OUT/s29_review2; < 60 s):
# tests/gpu/test_review29_simt_gpu.py -- review 29's SIMT programs (tests/unit/test_review29_simt_math.py, _memory.py,
# _control.py) launched on the GPU instead of the PTX emulator: the MUFU-based pow / atan2 /
# sinh / cosh / log2 of a subnormal against numpy float64, div.rz / .rm / .rp against exact rational quotients,
# order-free atomics, gathers / scatters / views / reductions / scans against numpy, outputs NaN / sentinel-prefilled.
# Expect: all passed (47 cases).
# Run (carry .whl):  CMD="bash benchmarks/session29_review2.sh" bash benchmarks/device_session.sh shell
S="$OUT/s29_review2"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
export TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
echo "=== tests ($(date -u +%T))"
timeout ${T1:-55} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_review29_simt_gpu.py \
  > "$S/tests.log" 2>&1
echo "[tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -30; tail -n 1 "$S/tests.log"
grep -E "^E  " "$S/tests.log" | head -20
echo "=== done ($(date -u +%T))"
