# Session 32's last device call (after `device_session.sh stage_tc` with .tc1 then .tc2 on the same warm machine, so
# tileiras 13.4 is on PATH; without it the tileiras columns are skipped): the GPU tests of what changed this session
# (sweep 23 with the f64 math, attention zoo 32, the row programs after the reshaped-reduction hoist and the
# sum-after-max exps, the launcher's static strides / stream checks / re-pointed launches), then issue 21's memory-bound
# set and issue 20's attention against tileiras (via cuTile) and torch, same process.
# Should show: tests all passed; memory_bound: every case >= 1.0x tileiras, >= 0.9x torch; attention >= tileiras.
# Run (carry .whl):  CMD="bash benchmarks/session32_final.sh" bash benchmarks/device_session.sh shell
S="$OUT/s32final"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
command -v tileiras >/dev/null && tileiras --version 2>&1 | head -2 | tee -a "$S/device.txt" || echo "no tileiras staged" | tee -a "$S/device.txt"
G="tests/gpu/test_row_smem_cache_gpu.py tests/gpu/test_memory_bound_gpu.py tests/gpu/test_attnzoo30_gpu.py tests/gpu/test_attnzoo32_gpu.py
   tests/gpu/test_user_sweep22_gpu.py tests/gpu/test_user_sweep23_gpu.py tests/gpu/test_cutile_gpu.py tests/gpu/test_bound_launches_gpu.py
   tests/gpu/test_launch_copy_ordering_gpu.py"
timeout ${TEST_TIMEOUT:-150} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 $G > "$S/tests.log" 2>&1
echo "[tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20; tail -n 1 "$S/tests.log"
timeout ${MEM_TIMEOUT:-220} python3 benchmarks/memory_bound.py --out "$S/mem" --iters 20 --sizes default > "$S/memory_bound.log" 2>&1
echo "[memory_bound] rc=$?"; tail -n 40 "$S/memory_bound.log"
timeout ${ATT_TIMEOUT:-150} python3 benchmarks/attention.py --out "$S/att" --dims 64,128 --seqs 1024,4096 --iters 10 \
  > "$S/attention.log" 2>&1
echo "[attention] rc=$?"; tail -n 16 "$S/attention.log"
tar czf "$OUT/s32final.tgz" -C "$OUT" s32final && rm -rf "$S"
