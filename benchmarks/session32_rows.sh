# Session 32 (s32-rows), issue 21's rows that miss 0.85 of the copy rate.  One memory_bound.py process per group,
# the device copy beside (its line first), 20 iterations, default sizes (256-537 MB; softmax 1000: 16 MB).
#   rows  the two-pass / three-pass rows (bulk-filled row cache, the defaults): CE forward + backward and the
#         three-loop softmax at 8192 / 16384 / 32000 columns, log-softmax 32000, the short-row softmaxes
#         (1000 and 1024 columns: no loop, the same PTX under every setting) under
#           TILEORCH_HOIST_RESHAPED_REDUCTIONS=0,TILEORCH_SUM_AFTER_MAX=0  main's default: a loop's keepdims=True
#                                            reduction (the three-loop softmax's max and sum loops) reduced across
#                                            the CTA every tile; the sum loop's exp at full precision
#           TILEORCH_SUM_AFTER_MAX=0         those reductions hoisted after their loops (PTX emulator, three loops
#                                            8192 cols: 59.8 -> 51.5 thread-instructions an element; call 1 of this
#                                            session, H100: 0.70 / 0.63 / 0.47 -> 0.83 / 0.79 / 0.62 of copy)
#           default                          and the sum loop's exp(x - max) as ex2 (a sum term: its argument is
#                                            at most 0; emulator 51.5 -> 43.7, 40 -> 32 registers)
#         (TILEORCH_ROW_CACHE_THREADS=256 / 512 left out: call 1 measured them slower on every row but one)
#   ce4k  the one-pass cross entropy over 4096 columns (4 tiles a row, two acq_rel atomics a row at its end) and
#         the same row's probes: its atomics relaxed / none (the loss stored), under
#           default
#           TILEORCH_ATOMIC_FENCE_TRIM=1    thread 0's four fences around the two final atomics cut to two: no
#                                           acquire after the last (it orders nothing), one fence.acq_rel between
#                                           them (call 1, H100: 0.75 of copy; its atomics relaxed 0.88, with the
#                                           loss stored instead 0.97)
#           TILEORCH_ATOMIC_FENCE_TRIM=1,TILEORCH_ONLINE_SOFTMAX_RUNS=2  and 64-thread CTAs (32 an SM instead of
#                                           16: more rows resident while their thread 0 fences)
#         and CE 32000 (the same program, one row per CTA at 32000 columns).
# Should show: three loops: main's < SUM_AFTER_MAX=0 < default at every width; CE fwd+bwd / log-softmax / softmax
#   equal across the three (same PTX).  CE 4096: FENCE_TRIM=1 between default (0.75) and the relaxed probe (0.88);
#   the probes equal under every setting but RUNS (no fences to trim in row_loss; relaxed has none).
# Run (carry .whl):  CMD="bash benchmarks/session32_rows.sh" bash benchmarks/device_session.sh shell
S="$OUT/s32rows"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
timeout ${ROWS_TIMEOUT:-150} python3 benchmarks/memory_bound.py --out "$S/bench_rows" --iters 20 --sizes default \
  --no-tileiras --only probe_ce_fwd_bwd_bf16_v8192 probe_ce_fwd_bwd_bf16_v16384 probe_ce_fwd_bwd_bf16_v32000 \
  probe_softmax_three_loops_bf16_v8192 probe_softmax_three_loops_bf16_v16384 probe_softmax_three_loops_bf16_v32000 \
  log_softmax_bf16_v32000 softmax_f16_4096x1000 softmax_f16_rows_x1024 \
  --env TILEORCH_HOIST_RESHAPED_REDUCTIONS=0,TILEORCH_SUM_AFTER_MAX=0 --env TILEORCH_SUM_AFTER_MAX=0 \
  --env default > "$S/bench_rows.log" 2>&1
echo "[rows] rc=$?"; grep -E "^device copy" "$S/bench_rows.log"
timeout ${CE_TIMEOUT:-70} python3 benchmarks/memory_bound.py --out "$S/bench_ce4k" --iters 20 --sizes default \
  --no-tileiras --only cross_entropy_bf16_v4096 cross_entropy_bf16_v32000 probe_ce_relaxed_bf16_v4096 \
  probe_ce_row_loss_bf16_v4096 --env default --env TILEORCH_ATOMIC_FENCE_TRIM=1 \
  --env TILEORCH_ATOMIC_FENCE_TRIM=1,TILEORCH_ONLINE_SOFTMAX_RUNS=2 > "$S/bench_ce4k.log" 2>&1
echo "[ce4k] rc=$?"; grep -E "^device copy" "$S/bench_ce4k.log"
python3 benchmarks/session27_rowred_summary.py "$S" rows ce4k 2>&1 | tail -n 50
tar czf "$OUT/s32rows.tgz" -C "$OUT" s32rows
