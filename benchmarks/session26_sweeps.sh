# Session 26's fifth device call: the user sweeps whose programs' PTX the session's new SIMT defaults changed (online
# softmax per-thread form: sweeps 3 / 6 / 10 / 15; one-element loads: sweeps 7 / 8 / 10 / 12 / 15 / 19 / 20; 15 and 19
# ran in call 3), against their numpy / torch references (QUICK, 15 workers; results under $OUT/s26_sweeps)
# Run (carry .whl):  CMD="bash benchmarks/session26_sweeps.sh" bash benchmarks/device_session.sh shell
S="$OUT/s26_sweeps"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
timeout ${T1:-200} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 tests/gpu/test_user_sweep10_gpu.py \
  tests/gpu/test_user_sweep3_gpu.py tests/gpu/test_user_sweep7_gpu.py tests/gpu/test_user_sweep8_gpu.py \
  tests/gpu/test_user_sweep12_gpu.py tests/gpu/test_user_sweep6_gpu.py tests/gpu/test_user_sweep20_gpu.py > "$S/tests.log" 2>&1
echo "[tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -30; tail -n 1 "$S/tests.log"
grep -oE "(PASSED|FAILED) tests/gpu/[a-z0-9_]+\.py" "$S/tests.log" | sort | uniq -c
[ -f "$S/failures.log" ] && head -c 3000 "$S/failures.log"
