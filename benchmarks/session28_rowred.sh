# Session 28 (s28-rowred): issue 21's cross entropy 4096 and log-softmax (0.705 / 0.645 of copy on the H100 in
# session 27), A/B one process each (--no-tileiras; rope and adamw ride along unchanged, as controls):
#   TILEORCH_ATOMIC_FENCES=holders   a tile's ordered atomic_rmw fences only in the threads holding a live element,
#                                    after a CTA barrier; the kernel's final atomics pass no barrier after, so
#                                    warps 1-3 of the cross entropy EXIT while thread 0's warp runs the two
#                                    MEMBAR.ALL.GPU + CCTL.IVALL pairs (default each: all four warps run them;
#                                    SASS ptxas sm_90a, 31 registers both, no spills).  tileiras's cubin for the
#                                    same program fences in thread 0 only (MEMBAR/ATOMG/CCTL under its branch).
#   TILEORCH_SIMT_VECTOR_BYTES=4/8   (an existing switch) log-softmax at 512 / 256 threads a row: 4 / 8 CTAs an SM,
#                                    ~528 / ~1056 rows resident (34 / 69 MB of a 64 KB row) against 16 CTAs (2112
#                                    rows, 138 MB): whether its second read of the row then hits the 50 MB L2 (PTX
#                                    emulator: 42.0 thread-instructions per element at 4 bytes against 18.3).
# Should show: CE 4096 holders > each (same-run copy fraction; s27: 0.705), CE 32000 holders >= each, the other
#   rows equal within noise (no atomics: the same PTX); log-softmax: if VECTOR_BYTES=4 beats the default, the
#   second read hits L2 at fewer resident rows (a layout rule for two-pass rows is then worth writing); all correct.
# Part 2 (tests under holders): the memory-bound GPU tests, the pointer-tile and view atomics, sweep 15's cross
#   entropy, the online softmax checks.  Should show: all passed.
# Run (carry .whl):  CMD="bash benchmarks/session28_rowred.sh" bash benchmarks/device_session.sh shell
#   -> $OUT/s28rowred.tgz.  Timeouts: 32 + 26 + 22 s + 30 s (the second process reuses the first one's cache
#   for every program but the two cross entropies).
S="$OUT/s28rowred"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
CASES="cross_entropy_bf16_v4096 cross_entropy_bf16_v32000 log_softmax_bf16_v32000 logsumexp_f32_v32000 \
  softmax_f16_rows_x1024 rope_bf16_llama adamw_f32_bf16_grads"
bench() {  # name, time limit, environment (VAR=VALUE ...), then memory_bound.py's arguments
  local name=$1 limit=$2 envs=$3; shift 3
  env $envs timeout ${BENCH_TIMEOUT:-$limit} python3 benchmarks/memory_bound.py --no-tileiras --out "$S/bench_$name" \
    --iters 20 --sizes default "$@" > "$S/bench_$name.log" 2>&1
  echo "[bench $name] rc=$?"
}
bench each 32 "TILEORCH_ATOMIC_FENCES=each" --only $CASES
bench holders 26 "TILEORCH_ATOMIC_FENCES=holders" --only $CASES
bench vec 22 "TILEORCH_ATOMIC_FENCES=each" --only log_softmax_bf16_v32000 --env default \
  --env TILEORCH_SIMT_VECTOR_BYTES=4 --env TILEORCH_SIMT_VECTOR_BYTES=8
python3 benchmarks/session27_rowred_summary.py "$S" each holders vec
TILEORCH_ATOMIC_FENCES=holders timeout ${TEST_TIMEOUT:-30} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_memory_bound_gpu.py tests/gpu/test_pointer_tiles_gpu.py tests/gpu/test_view_atomics_gpu.py \
  tests/gpu/test_online_softmax_exp_gpu.py \
  tests/gpu/test_user_sweep15_gpu.py::test_cross_entropy_forward_backward_against_torch > "$S/tests.log" 2>&1
echo "[tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20; tail -n 1 "$S/tests.log"
tar czf "$OUT/s28rowred.tgz" -C "$OUT" s28rowred
