# Session 31: the shared-memory row cache (TILEORCH_ROW_SMEM_CACHE=1) with its bytes capped and a shallower fill loop.
# Session 30 (H100): log-softmax 8192 cols 0.67 -> 0.99 of copy with the cache; 32000 cols 0.65 -> 0.68 (fill depth 4),
# 0.74 (depth 1); CE forward+backward 32000 0.64 -> 0.56 and a three-loop softmax 0.46 -> 0.41 (worse): a 64 KiB row
# leaves 3 CTAs an SM.  Here: the same programs, one process, copy beside, with the cache capped at 32 / 16 KiB a
# launch (the rest of the row reloads from global memory: more CTAs per SM) and depth 1.
# Should show: which (cap, depth) keeps v8192's gain and does not lose on the 32000-column rows; that pair becomes
# the default if it is >= default everywhere.  Run in the repo root on the device with the compiler installed (< 200 s).
# Run (carry .whl):  CMD="bash benchmarks/session31_rowcap.sh" bash benchmarks/device_session.sh shell
S="$OUT/s31rowcap"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
C=TILEORCH_ROW_SMEM_CACHE=1
timeout ${BENCH_TIMEOUT:-200} python3 benchmarks/memory_bound.py --out "$S/bench_cap" --iters 20 --sizes default --no-tileiras \
  --only log_softmax_bf16_v32000 probe_ce_fwd_bwd_bf16_v32000 probe_softmax_three_loops_bf16_v32000 \
  probe_log_softmax_bf16_v8192 cross_entropy_bf16_v32000 layernorm_f16 \
  --env default --env $C --env $C,TILEORCH_PREFETCH_DEPTH=1 --env $C,TILEORCH_ROW_SMEM_CACHE_BYTES=32768 \
  --env $C,TILEORCH_ROW_SMEM_CACHE_BYTES=32768,TILEORCH_PREFETCH_DEPTH=1 \
  --env $C,TILEORCH_ROW_SMEM_CACHE_BYTES=16384,TILEORCH_PREFETCH_DEPTH=1 > "$S/bench_cap.log" 2>&1
echo "[bench cap] rc=$?"
python3 benchmarks/session27_rowred_summary.py "$S" cap 2>&1 | tail -n 40 || tail -n 40 "$S/bench_cap.log"
tar czf "$OUT/s31rowcap.tgz" -C "$OUT" s31rowcap
