# Session 31's last device call (after `device_session.sh stage_tc` with .tc1 then .tc2 on the same warm machine, so
# tileiras 13.4 is on PATH): the GPU tests of what changed this session with the new defaults
# (TILEORCH_ROW_SMEM_CACHE=auto + TILEORCH_ROW_BULK_FILL=1, the soft cap's loop math, sweep 22, the sweep's RZ test),
# then issue 21's memory-bound set and issue 20's attention against tileiras (via cuTile) and torch, same process.
# Should show: tests all passed; memory_bound: the 32000-column log-softmax >= 0.85 of copy now by default, every
#   case >= 1.0x tileiras; attention >= tileiras everywhere (sessions 19-29: 1.5-4.5x).
# Run (carry .whl):  CMD="bash benchmarks/session31_final.sh" bash benchmarks/device_session.sh shell
S="$OUT/s31final"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
command -v tileiras >/dev/null && tileiras --version 2>&1 | head -2 | tee -a "$S/device.txt" || echo "no tileiras staged" | tee -a "$S/device.txt"
G="tests/gpu/test_row_smem_cache_gpu.py tests/gpu/test_memory_bound_gpu.py tests/gpu/test_attnzoo30_gpu.py tests/gpu/test_user_sweep_gpu.py"
[ -f tests/gpu/test_user_sweep22_gpu.py ] && G="$G tests/gpu/test_user_sweep22_gpu.py"
timeout ${TEST_TIMEOUT:-120} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 $G > "$S/tests.log" 2>&1
echo "[tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20; tail -n 1 "$S/tests.log"
timeout ${MEM_TIMEOUT:-200} python3 benchmarks/memory_bound.py --out "$S/mem" --iters 20 --sizes default > "$S/memory_bound.log" 2>&1
echo "[memory_bound] rc=$?"; tail -n 40 "$S/memory_bound.log"
timeout ${ATT_TIMEOUT:-200} python3 benchmarks/attention.py --out "$S/att" --dims 64,128 --seqs 1024,4096 --iters 10 \
  > "$S/attention.log" 2>&1
echo "[attention] rc=$?"; tail -n 16 "$S/attention.log"
tar czf "$OUT/s31final.tgz" -C "$OUT" s31final
