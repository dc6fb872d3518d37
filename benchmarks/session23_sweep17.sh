# Session 23, helper s23-sweep17: user sweep 17 on the GPU (not run before). Run from the repository root on the
# device with the compiler installed (as benchmarks/session23_gpu.sh: carry .whl), e.g. as one of the lead's
#   NEW_GPU_FILES="tests/gpu/test_user_sweep17_gpu.py" PART=tests CMD="bash benchmarks/session23_gpu.sh" ...
# or alone: CMD="bash benchmarks/session23_sweep17.sh" bash benchmarks/device_session.sh shell
# Writes $OUT/s23_sweep17/gpu_tests.log; prints the pass count and any failure.  About 60-120 s with 8 workers.
S="$OUT/s23_sweep17"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
timeout ${TEST_TIMEOUT:-140} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n ${WORKERS:-8} \
  tests/gpu/test_user_sweep17_gpu.py > "$S/gpu_tests.log" 2>&1
echo "sweep17 gpu rc=$?"; grep -cE " PASSED" "$S/gpu_tests.log"; grep -E " FAILED| ERROR" "$S/gpu_tests.log" | head -20
tail -n 2 "$S/gpu_tests.log"
