# Session 31 (s31-noticed): the GPU tests around what it changed -- test_user_sweep_gpu.py (its run() now applies
# overrides by parameter name), test_retile192_gpu.py and test_user_grid_gpu.py (launch remarks recorded once the
# kernel is prepared; a linear id launched short runs on the SIMT path with the new warning).
# Should show: all passed.  Run (carry .whl):  CMD="bash benchmarks/session31_gpu_calls.sh noticed" bash benchmarks/device_session.sh shell
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout ${TEST_TIMEOUT:-150} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_user_sweep_gpu.py \
  tests/gpu/test_retile192_gpu.py tests/gpu/test_user_grid_gpu.py 2>&1 | tail -n 15
