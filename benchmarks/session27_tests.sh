# Session 27's GPU test call (main with the session's merges; compiler installed by device_session.sh shell):
# the new defaults (ex2 online softmax, the epilogue dot's TMA store and fitted ring), review 27's integer / emulator
# edge checks, cover26/cover27 (dots with an A each, K segments), the memory-bound set, sweeps whose PTX the defined
# divisions changed, and a sample (every 12th case) of the attention programs (QUICK).
# Run (carry .whl):  CMD="bash benchmarks/session27_tests.sh" bash benchmarks/device_session.sh shell
S="$OUT/s27_tests"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
mapfile -t ATT < <(timeout 40 python3 -m pytest --collect-only -q -p no:cacheprovider tests/gpu/test_attention_programs.py 2>/dev/null | grep "::" | awk 'NR%12==0')
echo "attention sample: ${#ATT[@]}"
timeout ${T1:-330} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 15 \
  tests/gpu/test_review27_gpu.py tests/gpu/test_user_sweep2_gpu.py tests/gpu/test_online_softmax_exp_gpu.py \
  tests/gpu/test_memory_bound_gpu.py tests/gpu/test_user_sweep15_gpu.py tests/gpu/test_user_sweep3_gpu.py \
  tests/gpu/test_epilogue_dot_gpu.py tests/gpu/test_cover26_gpu.py tests/gpu/test_cover27_gpu.py \
  tests/gpu/test_user_sweep9_gpu.py tests/gpu/test_user_sweep14_gpu.py tests/gpu/test_user_sweep10_gpu.py \
  tests/gpu/test_user_sweep11_gpu.py tests/gpu/test_user_sweep17_gpu.py "${ATT[@]}" > "$S/tests.log" 2>&1
echo "[tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -30; tail -n 1 "$S/tests.log"
[ -f "$S/failures.log" ] && head -c 2500 "$S/failures.log"
tar czf "$OUT/s27_tests.tgz" -C "$OUT" s27_tests
