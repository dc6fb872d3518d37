# Session 35 (s35-loose): issue 21's f64 sin / cos / tan / sinh / cosh / atan2 on the GPU (refused before: now
# tileaa_to_simt/f64_trig.py + f64_math.hyperbolic, libdevice-free, checked on the CPU's PTX emulator by
# tests/unit/test_f64_trig_emulated.py), and a compile switch changed between two launches of one kernel.
# Should show:
#   [check]  per function, spread and huge arguments: the max ulps from C's libm (CPU, 262144 elements each) within
#            the bound (sin/cos 1, tan 3, sinh/cosh/atan2 2) -> ok, beside torch float64's (CUDA's math, up to 2);
#   [time]   one tileorch kernel computing all six f64 functions vs torch's six ops, ms for 4M elements;
#   [stale]  TILEORCH_MATH=approx set between two launches of an f32 tanh kernel changes its results, unset
#            again gives the default's (launchers/stale_settings.py; before: the first bound launch ran) -> ok;
#   [tests]  the GPU tests of bound launches (nothing of theirs should change).
# Runs from any tree (main's after the merge): uses only benchmarks/ and src/.
# Run (carry .whl):  TAIL=60 CMD="bash benchmarks/session35_f64trig.sh" bash benchmarks/device_session.sh shell
# Timeouts: 100 + 40 + 40 + 60 s (240 s at most).
S="$OUT/s35f64trig"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$S/device.txt"

echo "[check] f64 trig vs torch float64 (compiles the kernel: ptxas included)"
timeout 100 python3 benchmarks/session35_f64trig.py check 2>&1 | tee "$S/check.log" | grep -E "^\[check\]|Error|error" | tail -n 16
echo "[check] rc=${PIPESTATUS[0]}"

echo "[time] one tileorch kernel (six f64 functions) vs torch's six ops"
timeout 40 python3 benchmarks/session35_f64trig.py time 2>&1 | tee "$S/time.log" | grep -E "^\[time\]|Error|error" | tail -n 4
echo "[time] rc=${PIPESTATUS[0]}"

echo "[stale] a compile switch changed between launches"
timeout 40 python3 benchmarks/session35_f64trig.py stale 2>&1 | tee "$S/stale.log" | grep -E "^\[stale\]|Error|error" | tail -n 4
echo "[stale] rc=${PIPESTATUS[0]}"

echo "[tests] GPU tests of the bound launches"
timeout 60 python3 -m pytest -q -n 0 -p no:cacheprovider tests/gpu/test_bound_launches_gpu.py 2>&1 | tail -n 6
echo "[tests] rc=${PIPESTATUS[0]}"
