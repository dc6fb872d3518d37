# Session 32 (s32-rows), issue 21's rows that miss 0.85 of the copy rate.  One memory_bound.py process per group,
# the device copy beside (its line first), 20 iterations, default sizes (256-537 MB; softmax 1000: 16 MB).
#   rows  the two-pass / three-pass rows (bulk-filled row cache, the defaults): CE forward + backward and the
#         three-loop softmax at 8192 / 16384 / 32000 columns, log-softmax 32000, the short-row softmax
#         (1000 columns, 16 MB: no row cache, unchanged) under
#           TILEORCH_HOIST_RESHAPED_REDUCTIONS=0,TILEORCH_SUM_AFTER_MAX=0  the old default: a loop's keepdims=True
#                                            reduction (the three-loop softmax's max and sum loops) reduced across
#                                            the CTA every tile; the sum loop's exp at full precision
#           TILEORCH_SUM_AFTER_MAX=0         those reductions hoisted after their loops (PTX emulator, three loops
#                                            8192 cols: 59.8 -> 51.5 thread-instructions an element)
#           default                          and the sum loop's exp(x - max) as ex2 (a sum term: its argument is
#                                            at most 0; 51.5 -> 43.7); 128 threads a row (12 warps an SM at 32000
#                                            columns: 3 CTAs of 64 KB)
#           TILEORCH_ROW_CACHE_THREADS=256   8-byte accesses, 256 threads a row (24 warps an SM at 32000)
#           (=512, 48 warps: left out, PTX emulator 85.7 / 63.8 thread-instructions an element for the three loops
#           / CE fwd+bwd at 32000 columns against 49.4 / 33.7 at 128 threads)
#   ce4k  the one-pass cross entropy over 4096 columns (4 tiles a row; today one 2 KB tile in flight a CTA: the
#         peeled tile is reduced across the CTA before the loop's first load is issued) under
#           default
#           TILEORCH_ATOMIC_LAST_ACQUIRE=0  the acquire fence after the kernel's last atomic left out (it orders
#                                           nothing): thread 0 no longer waits for the second atomic's return, the
#                                           CTA ends (lead's ncu, H100: 121 us with the atomics, 93 us without)
#           TILEORCH_PREFETCH_DEPTH=3,TILEORCH_EARLY_PREFETCH=1 (the row's tiles 0-1 issued before the peel's
#                                           reductions, 2-3 after; 40 registers), and both
#         on CE 4096 / 32000 and the probes of the 4096 row: its two atomics RELAXED (no fences) / none (the row's
#         loss stored) -- the bounds of what the fences / the atomics cost on this H100
# Should show: three loops: old < SUM_AFTER_MAX=0 < default at every width (CE fwd+bwd, log-softmax: same PTX,
#   equal).  Rows at 32000 columns (CE fwd+bwd 0.77, three loops 0.48 by default) rise with 256 threads (if
#   they do not: the 32000-column rows are not short of warps -- look at instructions per element: the three
#   loops' two full-precision exps); 8192 / 16384 stay >= their default; softmax 1000 equal (same PTX).
#   CE 4096 (0.749 in session 31): LAST_ACQUIRE=0 between default and the relaxed probe; depth 3 + early: equal
#   (the loads are not the limit: ncu's no-atomics row 87% of DRAM peak) or better.  CE 32000 equal within noise.
# Run (carry .whl):  CMD="bash benchmarks/session32_rows.sh" bash benchmarks/device_session.sh shell
S="$OUT/s32rows"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
timeout ${ROWS_TIMEOUT:-165} python3 benchmarks/memory_bound.py --out "$S/bench_rows" --iters 20 --sizes default \
  --no-tileiras --only probe_ce_fwd_bwd_bf16_v8192 probe_ce_fwd_bwd_bf16_v16384 probe_ce_fwd_bwd_bf16_v32000 \
  probe_softmax_three_loops_bf16_v8192 probe_softmax_three_loops_bf16_v16384 probe_softmax_three_loops_bf16_v32000 \
  log_softmax_bf16_v32000 softmax_f16_4096x1000 \
  --env TILEORCH_HOIST_RESHAPED_REDUCTIONS=0,TILEORCH_SUM_AFTER_MAX=0 --env TILEORCH_SUM_AFTER_MAX=0 \
  --env default --env TILEORCH_ROW_CACHE_THREADS=256 > "$S/bench_rows.log" 2>&1
echo "[rows] rc=$?"; grep -E "^device copy" "$S/bench_rows.log"
timeout ${CE_TIMEOUT:-70} python3 benchmarks/memory_bound.py --out "$S/bench_ce4k" --iters 20 --sizes default \
  --no-tileiras --only cross_entropy_bf16_v4096 cross_entropy_bf16_v32000 probe_ce_relaxed_bf16_v4096 \
  probe_ce_row_loss_bf16_v4096 --env default --env TILEORCH_ATOMIC_LAST_ACQUIRE=0 \
  --env TILEORCH_PREFETCH_DEPTH=3,TILEORCH_EARLY_PREFETCH=1 \
  --env TILEORCH_ATOMIC_LAST_ACQUIRE=0,TILEORCH_PREFETCH_DEPTH=3,TILEORCH_EARLY_PREFETCH=1 \
  > "$S/bench_ce4k.log" 2>&1
echo "[ce4k] rc=$?"; grep -E "^device copy" "$S/bench_ce4k.log"
python3 benchmarks/session27_rowred_summary.py "$S" rows ce4k 2>&1 | tail -n 60
tar czf "$OUT/s32rows.tgz" -C "$OUT" s32rows
