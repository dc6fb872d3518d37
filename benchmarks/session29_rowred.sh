# Session 29 (s29-rowred): issue 21's cross entropy 4096 (0.62 of copy on the H200, s28) and log-softmax 32000 (0.63).
# Run in the repo root on the device with the compiler installed (< 120 s); writes $OUT/s29rowred/, prints a summary.
# The five defaults main flips this session are exported in every process (PAIR_STAGES=1, ATTN_CTAS_PER_SM=2,
# SIMT_PREDICATED_TAILS=1, REMATERIALIZE_FLOAT_LOADS=1, ATOMIC_FENCES=holders).
#   old  TILEORCH_PREFETCH_PAST_STORES=0 (default): issue 21's rows CE 4096 / 32000, log-softmax 32000, softmax
#        x1024, layernorm at >= 256 MB (logsumexp left out for the time: 0.96-0.98 of copy in s27), and the probes
#        (benchmarks/memory_bound.py probe_*, same bytes):
#        probe_ce_relaxed_bf16_v4096   CE 4096 with its two atomics RELAXED: no fences, the same-address atomics stay
#        probe_ce_row_loss_bf16_v4096  CE 4096 without atomics (the row's loss stored)
#        probe_log_softmax_bf16_v8192 / v16384  log-softmax at 8192 / 16384 columns: 2112 resident rows x 16 / 32 KB
#                                      = 35 / 69 MB between a row's two reads (32000 columns: 138 MB; L2 50 MB)
#   new  TILEORCH_PREFETCH_PAST_STORES=1: the log-softmax's second pass (load x, store x - lse) issues the next tile's
#        load before this tile's store (cuTile leaves them untied): ptxas 40 registers instead of 31 (12 CTAs/SM
#        instead of 16), 2 tiles in flight per CTA in the second pass instead of 1.  Beside it, in the same process,
#        fewer rows in flight with as many bytes (the probes' v8192 case on the 32000-wide rows):
#        TILEORCH_SIMT_CTAS_PER_SM=4 (528 resident rows x 64 KB = 35 MB between a row's two reads) with
#        TILEORCH_PREFETCH_DEPTH=4 / 8 (4 / 8 tiles in flight per CTA: 32 / 64 KB per SM; 48 / 72 registers, no
#        spills), and CTAS_PER_SM=6 with depth 4 (52 MB).  Only the log-softmax: the cap applies to every kernel.
# Should show: (1) CE 4096: row_loss >> acq_rel and relaxed ~ acq_rel  -> the same-address atomics (their
#   throughput) are the cost, not the fences; relaxed >> acq_rel -> the fences; all three alike -> neither (the per-row
#   latency chain / CTA turnover).  (2) log-softmax v8192 near 0.85-0.95 of copy, v16384 between, v32000 0.63 ->
#   the second read's L2 misses (footprint = resident rows x row bytes) are the cause, and the fix is fewer rows in
#   flight with the same bytes in flight (a row over several warp groups), not instructions.  (3) new vs old:
#   log-softmax 32000 equal or faster (if slower: the lost occupancy costs more than the second tile in flight).
#   (4) a capped + deep row (C4 D4 / C4 D8) near v8192's fraction -> the design holds: fewer rows in flight with as
#   many bytes in flight; the lasting form is a row over several warp groups of one CTA (same bytes in flight, no
#   shared memory held idle), not the cap.  (5) tests (memory-bound and online-softmax GPU tests with
#   PAST_STORES=1; the online-softmax ones again with CTAS_PER_SM=4, DEPTH=4): all passed.
# Run (carry .whl):  CMD="bash benchmarks/session29_rowred.sh" bash benchmarks/device_session.sh shell
#   WITH_TILEIRAS=1 (where `device_session.sh stage_tc` ran on the warm machine first) adds tileiras's column: whether
#   tileiras's cross entropy 4096 meets the same limit (give BENCH_TIMEOUT=70 then: it compiles each case twice).
S="$OUT/s29rowred"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
export TILEORCH_PAIR_STAGES=1 TILEORCH_ATTN_CTAS_PER_SM=2 TILEORCH_SIMT_PREDICATED_TAILS=1 \
  TILEORCH_REMATERIALIZE_FLOAT_LOADS=1 TILEORCH_ATOMIC_FENCES=holders
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
NO_TC=--no-tileiras; [ -n "${WITH_TILEIRAS:-}" ] && NO_TC=
bench() {  # name, time limit, environment (VAR=VALUE ...), then memory_bound.py's arguments
  local name=$1 limit=$2 envs=$3; shift 3
  env $envs timeout ${BENCH_TIMEOUT:-$limit} python3 benchmarks/memory_bound.py --out "$S/bench_$name" \
    --iters 20 --sizes default $NO_TC "$@" > "$S/bench_$name.log" 2>&1
  echo "[bench $name] rc=$?"
}
bench old 50 "TILEORCH_PREFETCH_PAST_STORES=0" --only cross_entropy_bf16_v4096 cross_entropy_bf16_v32000 \
  log_softmax_bf16_v32000 softmax_f16_rows_x1024 layernorm_f16 probe_ce_relaxed_bf16_v4096 \
  probe_ce_row_loss_bf16_v4096 probe_log_softmax_bf16_v8192 probe_log_softmax_bf16_v16384
P=TILEORCH_PREFETCH_PAST_STORES=1
bench new 30 "$P" --only log_softmax_bf16_v32000 --env "$P" \
  --env "$P,TILEORCH_SIMT_CTAS_PER_SM=4,TILEORCH_PREFETCH_DEPTH=4" \
  --env "$P,TILEORCH_SIMT_CTAS_PER_SM=4,TILEORCH_PREFETCH_DEPTH=8" \
  --env "$P,TILEORCH_SIMT_CTAS_PER_SM=6,TILEORCH_PREFETCH_DEPTH=4"
python3 benchmarks/session27_rowred_summary.py "$S" old new
TILEORCH_PREFETCH_PAST_STORES=1 timeout ${TEST_TIMEOUT:-20} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE \
  -n 8 tests/gpu/test_memory_bound_gpu.py tests/gpu/test_online_softmax_exp_gpu.py > "$S/tests.log" 2>&1
echo "[tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20; tail -n 1 "$S/tests.log"
# the measuring switches on the hardware (dynamic shared memory reserved, 4 tiles in flight): the online softmax checks
TILEORCH_PREFETCH_PAST_STORES=1 TILEORCH_SIMT_CTAS_PER_SM=4 TILEORCH_PREFETCH_DEPTH=4 timeout ${TEST_TIMEOUT2:-12} \
  python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 4 tests/gpu/test_online_softmax_exp_gpu.py \
  > "$S/tests_c4d4.log" 2>&1
echo "[tests C4 D4] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests_c4d4.log" | sort -u | head; tail -n 1 "$S/tests_c4d4.log"
tar czf "$OUT/s29rowred.tgz" -C "$OUT" s29rowred
