# Session 24 (s24-rowred): wide-row online softmax loops on the SIMT path, A/B in one process (issue 21's cross
# entropy at 0.49-0.54 of the copy, session 23, H100).  Two default-path changes, each with its switch:
#   TILEORCH_SIMT_REDUCE_EXCHANGE=1  the old shared-memory exchange after a reduction whose threads already hold
#                                    their own outputs (ct.max(x) of a (1, N) tile reduces the unit dim first)
#   TILEORCH_ONLINE_SOFTMAX=8        (opt-in) per-element running max and sum (tileaa-hoist-online-softmax) instead
#                                    of the loop as written (two cross-thread reductions per tile)
# Settings: "old" = TILEORCH_SIMT_REDUCE_EXCHANGE=1 (session 23's kernels), default = only the exchange removed,
# TILEORCH_ONLINE_SOFTMAX=8 = both changes (the online rewrite is opt-in until this run measures it).  Cases: cross entropy (bf16, 4096 x 32000), logsumexp (f32, 2048 x 32000), log-softmax (bf16, 4096 x
# 32000, reads the row twice) at their default sizes (262 MB); the cross entropy over 4096 columns (4 tiles: the loop
# as written behind the trip-count branch, only the exchange removed); softmax_f16_4096x1000 and layernorm_f16 as controls
# (no online loop; their PTX changes only if they reduce a unit dimension).  Prints TB/s, vs torch, vs copy.
# What it should show: default >= exchange >= old on the three online cases (CPU model: PTX thread-instructions
# per element of the 32000-wide cross entropy 34.8 -> 27.6 -> 23.4, barriers per element 1.04 -> 0.52 -> 0.04);
# controls unchanged within noise.  Then the emulated / GPU tests of the changed programs.
# Run (carry .whl):  CMD="bash benchmarks/session24_rowred.sh" bash benchmarks/device_session.sh shell
#   -> $OUT/s24rowred.tgz.  Timeouts: 110 + 35 s (add --sizes default,large for 1 GB rows when time allows).
S="$OUT/s24rowred"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
timeout ${BENCH_TIMEOUT:-110} python3 benchmarks/memory_bound.py --no-tileiras --out "$S/bench" --iters 20 \
  --only cross_entropy_bf16_v32000 cross_entropy_bf16_v4096 logsumexp_f32_v32000 log_softmax_bf16_v32000 softmax_f16_4096x1000 layernorm_f16 \
  --sizes default \
  --env TILEORCH_SIMT_REDUCE_EXCHANGE=1 --env default --env TILEORCH_ONLINE_SOFTMAX=8 \
  2>&1 | tee "$S/bench.log" | grep -v "^{" | tail -n 40
timeout ${TEST_TIMEOUT:-35} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 \
  "tests/gpu/test_user_sweep15_gpu.py" -k "cross_entropy" 2>&1 | tee "$S/gpu_tests.log" | tail -n 6
tar czf "$OUT/s24rowred.tgz" -C "$OUT" s24rowred
