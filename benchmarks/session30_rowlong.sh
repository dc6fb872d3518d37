# Session 30 (s30-rowlong): TILEORCH_ROW_SMEM_CACHE=1 -- a two-pass row keeps the tiles its first loop loaded in
# shared memory and its second loop reads them there (2 B read + 2 B written per bf16 element instead of 4 + 2;
# the emulator's count, benchmarks/rowred_traffic.py --only log_softmax: read 4.000 -> 2.000 B/elt at 32000), the
# first loop 4 tiles in flight (3 CTAs of 64 KiB rows per SM).  Run in the repo root on the device with the
# compiler installed (< 120 s); writes $OUT/s30rowlong/, prints a summary.
#   tests  tests/gpu/test_row_smem_cache_gpu.py (switch on: log-softmax 32000/32001/4095/1000 and 120000 columns --
#          more than 227 KiB, the tail reloads from global memory --, CE forward+backward, three-loop softmax,
#          layernorm column loop, in-place log-softmax; vs torch fp32, NaN outputs, each kernel checked to carry
#          the cache) and tests/gpu/test_memory_bound_gpu.py with the switch on (programs without a pair: unchanged)
#   bench  benchmarks/memory_bound.py, one process, the copy beside, --env default --env TILEORCH_ROW_SMEM_CACHE=1:
#          log-softmax 32000 (262 MB), CE 4096 / 32000 (one loop each: the switch must not change them), softmax
#          x1024 and layernorm (one-pass rows: unchanged), and two more two-pass rows (probe_*): the CE forward +
#          backward at 32000 (sweep 10's) and a softmax written as three loops; the log-softmax at 8192 columns
#          (shorter rows: the second read hit L2 more often, the switch costs registers 31 -> 48 and 16 KiB a CTA).
# Should show: log-softmax 32000 from ~0.63 of copy (default) to >= 0.85 with the switch; probe_ce_fwd_bwd and
#   probe_softmax_three_loops up likewise (the three-loop softmax reads the row once instead of three times);
#   CE 4096 / 32000, softmax x1024, layernorm equal within noise (no pair: same PTX); v8192 not slower (if slower:
#   the switch is a long-row choice, default only with a row-length test); every case correct; tests all
#   passed.  The depth line (switch on, the fill loop's depth 1 / 2 / 8 against the chosen 4 in the ab line): the
#   emulator counts 18.65 thread-instructions per element (default), 18.93 (cache, depth 1), 19.99 (depth 2), 21.17
#   (depth 4) -- with 12 warps per SM the issue rate may bound it; the best depth there is the one to make the
#   rule (row_cache_lowering.fill_depth).  If every depth stays < 0.85: neither bytes in flight nor instructions
#   alone; if the switch is slower than default: the occupancy loss (3 CTAs of 128 threads per SM).
# Run (carry .whl):  CMD="bash benchmarks/session30_rowlong.sh" bash benchmarks/device_session.sh shell
S="$OUT/s30rowlong"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
bench() {  # name, time limit, then memory_bound.py's arguments
  local name=$1 limit=$2; shift 2
  timeout ${BENCH_TIMEOUT:-$limit} python3 benchmarks/memory_bound.py --out "$S/bench_$name" --iters 20 \
    --sizes default --no-tileiras "$@" > "$S/bench_$name.log" 2>&1
  echo "[bench $name] rc=$?"
}
TILEORCH_ROW_SMEM_CACHE=1 timeout ${TEST_TIMEOUT:-30} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_row_smem_cache_gpu.py tests/gpu/test_memory_bound_gpu.py > "$S/tests.log" 2>&1
echo "[tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20; tail -n 1 "$S/tests.log"
bench ab 60 --only log_softmax_bf16_v32000 cross_entropy_bf16_v4096 cross_entropy_bf16_v32000 \
  softmax_f16_rows_x1024 layernorm_f16 probe_ce_fwd_bwd_bf16_v32000 probe_softmax_three_loops_bf16_v32000 \
  probe_log_softmax_bf16_v8192 \
  --env default --env TILEORCH_ROW_SMEM_CACHE=1
bench depth 20 --only log_softmax_bf16_v32000 --env TILEORCH_ROW_SMEM_CACHE=1,TILEORCH_PREFETCH_DEPTH=1 \
  --env TILEORCH_ROW_SMEM_CACHE=1,TILEORCH_PREFETCH_DEPTH=2 --env TILEORCH_ROW_SMEM_CACHE=1,TILEORCH_PREFETCH_DEPTH=8
python3 benchmarks/session27_rowred_summary.py "$S" ab depth
tar czf "$OUT/s30rowlong.tgz" -C "$OUT" s30rowlong
