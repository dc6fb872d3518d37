# Session 27 (s27-rowred): issue 21's online max / sum-of-exp programs (cross entropy 4096 / 32000, log-softmax,
# logsumexp): two switches of the per-thread online softmax, both off by default, A/B one process each:
#   TILEORCH_ONLINE_SOFTMAX_EXP=ex2   its exponentials as ex2.approx.ftz(d*log2 e) (3 SASS instructions, FADD FMUL
#                                     MUFU, instead of the full-precision exp's 9)
#   TILEORCH_ONLINE_SOFTMAX_RUNS=R    R 16-byte runs per thread (CTA R times narrower: 1024-element bf16 tiles at
#                                     64 / 32 threads for R = 2 / 4; ptxas sm_90a 56 / 95-96 registers, no spills:
#                                     18 / 21 resident CTAs per SM against 16 of 128 threads, so a 4096-row grid is
#                                     1.72 / 1.48 waves against 1.94: R = 2 is there for the tail of the wave)
# softmax and layernorm (no online loop: the same PTX under both) as the controls.
#   CPU (PTX emulator thread-instructions per element, benchmarks/rowred_traffic.py, results/rowred_traffic_s27.json;
#   full R=1 / ex2 R=1 / full R=4 / ex2 R=4): CE 4096 26.57 / 17.32 / 17.28 / 9.72, CE 32000 19.30 / 10.39 / 15.53 /
#   7.93, logsumexp 32000 24.23 / 13.57 / 16.68 / 8.64, log-softmax 32000 27.25 / 18.34 / 21.03 / 13.43 (softmax f16
#   1024-wide, at 0.85+ of copy: 29.1 for 4 bytes moved per element, 7.3 per byte; CE at full R=1: 9.7 (32000) and
#   13.3 (4096) per byte, ex2 R=4: 4.0 and 4.9).
# Should show: ex2 > full on the four online programs, R=2/4 > R=1 most on CE 4096 (its per-row costs: 4 tiles
#   a row; 32768 rows, many waves); CE near the copy rate if instruction issue was the limit (H200 session 26:
#   CE 32000 0.66 of copy, CE 4096 0.51, log-softmax 0.62, logsumexp 0.92); log-softmax less (it reads its row twice: 6
#   B moved per 4 B counted, a ceiling near 0.67 of copy unless the second read hits L2); softmax / layernorm equal
#   within noise; all correct.
#   If CE 4096 stays low with few instructions, the two same-address atomics per row (32768 rows) are the next
#   suspect.
# Part 2 (tests, 26 s): the ex2 form's accuracy against torch float64 and the full build
#   (tests/gpu/test_online_softmax_exp_gpu.py), the memory-bound GPU tests, sweep 15's cross entropy and sweep 3's
#   logsumexp under TILEORCH_ONLINE_SOFTMAX_EXP=ex2 TILEORCH_ONLINE_SOFTMAX_RUNS=4.  Should show: all passed.
# Run (carry .whl):  CMD="bash benchmarks/session27_rowred.sh" bash benchmarks/device_session.sh shell
#   -> $OUT/s27rowred.tgz.  Timeouts: 28 + 28 + 36 s + 26 s.
S="$OUT/s27rowred"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
ONLINE="cross_entropy_bf16_v4096 cross_entropy_bf16_v32000 logsumexp_f32_v32000 log_softmax_bf16_v32000"
bench() {  # name, environment (VAR=VALUE ...), then memory_bound.py's arguments
  local name=$1 envs=$2 limit=28; shift 2
  [ "$name" = runs ] && limit=36
  env $envs timeout ${BENCH_TIMEOUT:-$limit} python3 benchmarks/memory_bound.py --no-tileiras --out "$S/bench_$name" \
    --iters 20 --sizes default "$@" > "$S/bench_$name.log" 2>&1
  echo "[bench $name] rc=$?"
}
bench full "TILEORCH_ONLINE_SOFTMAX_EXP=full" --only $ONLINE softmax_f16_rows_x1024 layernorm_f16
bench ex2 "TILEORCH_ONLINE_SOFTMAX_EXP=ex2" --only $ONLINE softmax_f16_rows_x1024 layernorm_f16
bench runs "TILEORCH_ONLINE_SOFTMAX_EXP=ex2" --only cross_entropy_bf16_v4096 cross_entropy_bf16_v32000 \
  log_softmax_bf16_v32000 --env TILEORCH_ONLINE_SOFTMAX_RUNS=4 --env TILEORCH_ONLINE_SOFTMAX_RUNS=2 \
  --env TILEORCH_ONLINE_SOFTMAX_EXP=full,TILEORCH_ONLINE_SOFTMAX_RUNS=4
python3 benchmarks/session27_rowred_summary.py "$S"
TILEORCH_ONLINE_SOFTMAX_EXP=ex2 TILEORCH_ONLINE_SOFTMAX_RUNS=4 timeout ${TEST_TIMEOUT:-26} python3 -m pytest -q \
  --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_online_softmax_exp_gpu.py tests/gpu/test_memory_bound_gpu.py \
  tests/gpu/test_user_sweep15_gpu.py::test_cross_entropy_forward_backward_against_torch \
  tests/gpu/test_user_sweep3_gpu.py::test_logsumexp_online > "$S/tests.log" 2>&1
echo "[tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20; tail -n 1 "$S/tests.log"
tar czf "$OUT/s27rowred.tgz" -C "$OUT" s27rowred
