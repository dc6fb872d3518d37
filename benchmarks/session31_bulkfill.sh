# Session 31 (s31-bulkfill): TILEORCH_ROW_BULK_FILL=1 on top of TILEORCH_ROW_SMEM_CACHE=1 -- before the fill loop one
# thread bulk-copies the row's whole tiles into their slots (cp.async.bulk.shared::cluster.global, up to 16 copies,
# one mbarrier each: all of the row's bytes in flight at once), the fill loop waits on its tile's barrier and reads
# the slot (ld.shared) instead of loading global memory and storing the slot; rows not 16-byte aligned, the tail
# tile and slots past the launch keep the cache's loaded path (transforms/tileaa_to_simt/row_bulk_fill.py).
# Session 30/31 (H100, same process, vs copy): log-softmax 32000 cols 0.65 (default) / 0.68 (cache); CE fwd+bwd 32000
# 0.63 / 0.56; three-loop softmax 0.46 / 0.41; log-softmax 8192 0.67 / 0.99 -- a 64 KB row leaves 3 CTAs an SM
# and the cache's register-staged fill keeps ~24 KB/SM in flight.
#   tests  tests/gpu/test_row_smem_cache_gpu.py with both switches on (each kernel checked to carry the bulk copies;
#          32001 / 4095 columns: rows not 16-byte aligned take the loaded path; 120000: the slots past 227 KiB reload)
#   bench  benchmarks/memory_bound.py, one process, copy beside: default (ROW_SMEM_CACHE=auto: the cache only for rows
#          of <= 32 KiB, so at 32000 columns no cache) / cache forced (=1) / cache forced + bulk fill.
# Should show: the 32000-column rows (log-softmax, CE fwd+bwd, three loops) with bulk fill >= 0.85 of copy (the fill
#   at memory speed, passes 2 and 3 from shared memory); v8192 keeps ~0.99; cross_entropy_bf16_v32000 and
#   layernorm_f16 (one-pass rows, no pair) equal within noise.  If bulk < cache: the issue is not bytes in flight
#   (look at the fill's wait: 2 tiles a barrier at 32000 columns; the bulk fill's loop prefetches one iteration, not
#   fill_depth's 4: the emulator counts 18.97 thread-instructions per element with bulk, 21.17 for the cache at depth
#   4, 18.93 at depth 1).  Tests all passed; every case correct.  If cache + bulk beats
#   default at 32000 columns: make the bulk fill the default and let auto (launchers/row_cache_smem.auto_declines) keep
#   the cache for a bulk-filled program's long rows.
# Run in the repo root on the device with the compiler installed (< 150 s; carry .whl):
#   CMD="bash benchmarks/session31_gpu_calls.sh bulkfill" bash benchmarks/device_session.sh shell
S="$OUT/s31bulkfill"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
C=TILEORCH_ROW_SMEM_CACHE=1
TILEORCH_ROW_SMEM_CACHE=1 TILEORCH_ROW_BULK_FILL=1 timeout ${TEST_TIMEOUT:-40} python3 -m pytest -q --tb=short \
  -p no:cacheprovider -rfE -n 8 tests/gpu/test_row_smem_cache_gpu.py > "$S/tests.log" 2>&1
echo "[tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20; tail -n 1 "$S/tests.log"
timeout ${BENCH_TIMEOUT:-100} python3 benchmarks/memory_bound.py --out "$S/bench_bulk" --iters 20 --sizes default \
  --no-tileiras --only log_softmax_bf16_v32000 probe_ce_fwd_bwd_bf16_v32000 probe_softmax_three_loops_bf16_v32000 \
  probe_log_softmax_bf16_v8192 cross_entropy_bf16_v32000 layernorm_f16 \
  --env default --env $C --env $C,TILEORCH_ROW_BULK_FILL=1 > "$S/bench_bulk.log" 2>&1
echo "[bench bulk] rc=$?"
python3 benchmarks/session27_rowred_summary.py "$S" bulk 2>&1 | tail -n 40 || tail -n 40 "$S/bench_bulk.log"
tar czf "$OUT/s31bulkfill.tgz" -C "$OUT" s31bulkfill
