# Session 31: TILEORCH_ROW_SMEM_CACHE=auto as the default (the cuTile launcher keeps a row of <= 32 KiB in shared
# memory and runs a longer row with the kernel compiled without the cache; launchers/row_cache_smem.auto_declines).
# One process, copy beside: auto (default) / 0 (the old default) / 1 (the cache whatever the row) on the two-pass rows at
# 8192 / 16384 / 32000 columns (same bytes), CE 4096 / 32000, softmax x1024, layernorm; then the GPU tests of the
# memory-bound programs and the row cache with the new default.
# Should show: auto >= max(0, 1) - noise on every line (8192 / 16384: = 1; 32000: = 0); tests all passed.
# Run (carry .whl):  CMD="bash benchmarks/session31_gpu_calls.sh rowauto" bash benchmarks/device_session.sh shell
S="$OUT/s31rowauto"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
timeout ${BENCH_TIMEOUT:-170} python3 benchmarks/memory_bound.py --out "$S/bench_auto" --iters 20 --sizes default --no-tileiras \
  --only log_softmax_bf16_v32000 probe_log_softmax_bf16_v8192 probe_log_softmax_bf16_v16384 \
  probe_ce_fwd_bwd_bf16_v8192 probe_ce_fwd_bwd_bf16_v16384 probe_ce_fwd_bwd_bf16_v32000 \
  probe_softmax_three_loops_bf16_v8192 probe_softmax_three_loops_bf16_v16384 probe_softmax_three_loops_bf16_v32000 \
  cross_entropy_bf16_v4096 cross_entropy_bf16_v32000 softmax_f16_rows_x1024 layernorm_f16 \
  --env default --env TILEORCH_ROW_SMEM_CACHE=0 --env TILEORCH_ROW_SMEM_CACHE=1 > "$S/bench_auto.log" 2>&1
echo "[bench auto] rc=$?"
python3 benchmarks/session27_rowred_summary.py "$S" auto 2>&1 | tail -n 42
timeout ${TEST_TIMEOUT:-120} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_row_smem_cache_gpu.py tests/gpu/test_memory_bound_gpu.py > "$S/tests.log" 2>&1
echo "[tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20; tail -n 1 "$S/tests.log"
tar czf "$OUT/s31rowauto.tgz" -C "$OUT" s31rowauto
