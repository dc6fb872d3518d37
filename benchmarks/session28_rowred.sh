# Session 28 (s28-rowred): issue 21's cross entropy 4096 and log-softmax (0.705 / 0.645 of copy on the H100 in
# session 27), rope (0.99x tileiras), each switch A/B in one call (copy rate measured in each process):
#   TILEORCH_ATOMIC_FENCES=holders   a tile's ordered atomic_rmw fences only in the threads holding a live element,
#                                    after a CTA barrier; the kernel's final atomics pass no barrier after, so
#                                    warps 1-3 of the cross entropy EXIT while thread 0's warp runs the two
#                                    MEMBAR.ALL.GPU + CCTL.IVALL pairs (default each: all four warps run them;
#                                    ptxas sm_90a 31 registers both, no spills).  tileiras's cubin for the same
#                                    program fences in thread 0 only (MEMBAR/ATOMG/CCTL under its branch).
#                                    One process each (each / holders); softmax the control.
#   TILEORCH_REMATERIALIZE_FLOAT_LOADS=1  rope's cos / sin rows loaded by each thread where it multiplies them, not
#                                    exchanged through shared memory (SASS 472 instructions, 48 registers, no
#                                    BAR.SYNC / LDS, against 496 / 62 with 8 BAR.SYNC and 32 LDS); --env A/B in one
#                                    process with tileiras (rope's target: >= 1.0x tileiras); adamw the control.
#   TILEORCH_EARLY_PREFETCH=1        a prefetching loop's first loads issued as early as its block allows: the online
#                                    softmax's loop's first tile is loaded with the peeled tile, before the peel's two
#                                    CTA reductions (default: after them, one memory latency later; CE 4096 has 4
#                                    tiles a row).  --env A/B inside the holders process.
# Should show: CE 4096 holders > each (s27: 0.705 of copy), CE 32000 holders >= each, softmax equal within noise
#   (the same PTX); CE 4096 [TILEORCH_EARLY_PREFETCH=1] > [default] in the holders process, log-softmax too if its
#   peel's latency shows; rope [TILEORCH_REMATERIALIZE_FLOAT_LOADS=1] > rope [default] and >= 1.0x tileiras, adamw equal;
#   all correct.  (Not run here, for the 120 s: log-softmax at TILEORCH_SIMT_VECTOR_BYTES=4, 512 threads a row, 4 CTAs
#   an SM, ~528 rows resident, 34 MB of 64 KB rows against 2112 rows / 138 MB: whether its second read of the row
#   then hits the 50 MB L2; PTX emulator 42.0 thread-instructions per element against 18.3.)
# Part 2 (tests under the three switches): the memory-bound GPU tests, the pointer-tile and view atomics, the online
#   softmax checks, sweep 15's cross entropy and partial rotary.  Should show: all passed.
# Run (carry .whl):  CMD="bash benchmarks/session28_rowred.sh" bash benchmarks/device_session.sh shell
#   -> $OUT/s28rowred.tgz (the remat rows have tileiras's column only where `device_session.sh stage_tc` ran on
#   the warm machine first; else tileorch's and torch's).  Timeouts: 26 + 34 + 30 + 20 s (the second
#   process reuses the first one's cache for every program but the two cross entropies).
S="$OUT/s28rowred"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
CASES="cross_entropy_bf16_v4096 cross_entropy_bf16_v32000 log_softmax_bf16_v32000 softmax_f16_rows_x1024"
bench() {  # name, time limit, environment (VAR=VALUE ...), then memory_bound.py's arguments
  local name=$1 limit=$2 envs=$3; shift 3
  env $envs timeout ${BENCH_TIMEOUT:-$limit} python3 benchmarks/memory_bound.py --out "$S/bench_$name" \
    --iters 20 --sizes default "$@" > "$S/bench_$name.log" 2>&1
  echo "[bench $name] rc=$?"
}
bench each 26 "TILEORCH_ATOMIC_FENCES=each" --no-tileiras --only $CASES
bench holders 34 "TILEORCH_ATOMIC_FENCES=holders" --no-tileiras --only $CASES --env default --env TILEORCH_EARLY_PREFETCH=1
bench remat 30 "" --only rope_bf16_llama adamw_f32_bf16_grads --env default --env TILEORCH_REMATERIALIZE_FLOAT_LOADS=1
python3 benchmarks/session27_rowred_summary.py "$S" each holders remat
grep -h "rope_bf16_llama\|adamw" "$S/bench_remat.log"  # with tileiras's column
TILEORCH_ATOMIC_FENCES=holders TILEORCH_REMATERIALIZE_FLOAT_LOADS=1 TILEORCH_EARLY_PREFETCH=1 timeout ${TEST_TIMEOUT:-20} python3 -m pytest -q \
  --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_memory_bound_gpu.py tests/gpu/test_pointer_tiles_gpu.py \
  tests/gpu/test_view_atomics_gpu.py tests/gpu/test_online_softmax_exp_gpu.py \
  tests/gpu/test_user_sweep15_gpu.py::test_cross_entropy_forward_backward_against_torch \
  tests/gpu/test_user_sweep15_gpu.py::test_partial_rotary_against_torch > "$S/tests.log" 2>&1
echo "[tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20; tail -n 1 "$S/tests.log"
tar czf "$OUT/s28rowred.tgz" -C "$OUT" s28rowred
