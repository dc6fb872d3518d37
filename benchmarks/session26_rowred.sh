# Session 26 (s26-rowred): issue 21's online max / sum-of-exp loops and the register-A regression, A/B in one process
# each (< 120 s).  Three default-path changes, each with its setting:
#   TILEORCH_ONLINE_SOFTMAX=N, TILEORCH_ONLINE_SOFTMAX_FORM=thread|element
#       the online rewrite (tileaa-hoist-online-softmax) in its new per-thread form: a running max and sum per
#       thread (2 registers) instead of per element position (session 24's "element" form: 2 x 8 registers,
#       56 a thread for the cross entropy, 9 CTAs/SM instead of 16: CE 4096 -13% on the H200 of session 25),
#       no second (as-written) copy of the loop at N=1.  ptxas sm_90a, CE: 32 (off) / 56 (element, N=8) /
#       31 (thread, N=1) registers, no spills.
#   TILEORCH_SIMT_ONE_ELEMENT_LOADS=0
#       a one-element tile load (the cross entropy's label) by thread 0, handed out through shared memory (a barrier
#       pair before the row loop's first tile load, where every thread waits for the label's load); the new
#       default: every thread loads it (no barrier; the wait comes after the loop, where the label is used).
#   TILEORCH_COMPUTED_OPERAND=registers
#       a computed A reading a K-indexed vector (rmsnorm_gamma_gemm: a * gamma[k]) as WGMMA's register A,
#       sessions 23-25's default (0.87x the staged A on the H200 of session 25); the new default stages it.
# Part 1: benchmarks/memory_bound.py, cross entropy 4096 / 32000, logsumexp, log-softmax, softmax f16, layernorm:
#   the old default (both SIMT switches off), the one-element loads alone, the new default (TILEORCH_ONLINE_SOFTMAX=1,
#   the per-thread form, and the one-element loads).
#   Should show: new >= old on the four online loops (CPU: thread-instructions per element 27.6 -> 19.3 for CE
#   32000, 45.6 -> 24.2 for logsumexp; CE 4096 no longer loses), softmax / layernorm equal within noise.
# Part 2: benchmarks/tile_programs.py rmsnorm_gamma_gemm_f16 at 4096^3, registers (old) vs default (staged).
#   Should show: default ~317 TFLOP/s vs ~276 (session 25's staged / register-A numbers; the default's PTX is the
#   staged path's byte for byte).
# Run (carry .whl):  CMD="bash benchmarks/session26_rowred.sh" bash benchmarks/device_session.sh shell
#   -> $OUT/s26rowred.tgz.  Timeouts: 85 + 2 x 15 s.
S="$OUT/s26rowred"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
timeout ${BENCH_TIMEOUT:-85} python3 benchmarks/memory_bound.py --no-tileiras --out "$S/bench" --iters 20 \
  --only cross_entropy_bf16_v4096 cross_entropy_bf16_v32000 logsumexp_f32_v32000 log_softmax_bf16_v32000 \
         softmax_f16_4096x1000 layernorm_f16 \
  --sizes default \
  --env TILEORCH_ONLINE_SOFTMAX=0,TILEORCH_SIMT_ONE_ELEMENT_LOADS=0 --env TILEORCH_ONLINE_SOFTMAX=0 --env default \
  2>&1 | tee "$S/bench.log" | grep -v "^{" | tail -n 20
for variant in registers default; do
  env $([ "$variant" = registers ] && echo TILEORCH_COMPUTED_OPERAND=registers) timeout ${TILE_TIMEOUT:-15} \
    python3 benchmarks/tile_programs.py --out "$S/tile_$variant" --iters 20 --sizes 4096x4096x4096 \
    --programs rmsnorm_gamma_gemm_f16 2>&1 | tee "$S/tile_programs_$variant.log" | grep -v "^{" | tail -n 4
done
# Part 3 (S26_TESTS=1 only: past the 120 s of parts 1-2): the GPU tests of the changed paths (torch references,
# NaN-prefilled outputs): cross entropy / logsumexp / log-softmax programs, gamma under both A paths.
if [ -n "${S26_TESTS:-}" ]; then
  timeout ${TEST_TIMEOUT:-60} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 \
    tests/gpu/test_user_sweep15_gpu.py tests/gpu/test_register_a_gpu.py tests/gpu/test_computed_b_gpu.py \
    -k "cross_entropy or gamma" 2>&1 | tee "$S/gpu_tests.log" | tail -n 6
fi
tar czf "$OUT/s26rowred.tgz" -C "$OUT" s26rowred
