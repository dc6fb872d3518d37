# Session 30 (s30-remat): TILEORCH_REMATERIALIZE_FLOAT_LOADS=1 made the default (SIMT path: a broadcast float tile load
# reloaded by each thread at the coordinates it needs instead of exchanged through shared memory between two bar.sync;
# transforms/tileaa_to_simt/rematerialize.py).  Session 29 flipped it and reverted it: three sweep-9 programs disagreed
# with numpy on the SIMT interpreter.  The cause (compiler): the rematerialized-tile memo was keyed by the IR block, and a
# prefetching loop is lowered two iterations a trip (prefetch.unrolled), so a trip's second iteration took the first
# iteration's reloaded tile; now keyed by the emitted block too.  Session 29's H200 (with the bug): rope 0.75 -> 0.84 of
# copy, adamw equal.
# Run in the repo root on the device with the compiler installed (< 120 s); writes $OUT/s30remat/, prints a summary.
#   1. benchmarks/memory_bound.py, one process, both variants on the same GPU: rope_bf16_llama, adamw_f32_bf16_grads,
#      softmax_f16_4096x1000, softmax_f16_rows_x1024, layernorm_f16, rmsnorm_f16 under
#      TILEORCH_REMATERIALIZE_FLOAT_LOADS=0 (the old default) and the new default.
#   2. the memory-bound GPU tests and sweep 15's (rope, adamw) with the new default.
# Should show: rope's fraction of copy up with the default (s29: 0.75 -> 0.84; its kernel: 8 bar.sync -> 0, ptxas
# 34 -> 58 registers, no spills); adamw, softmax, layernorm, rmsnorm within noise (their PTX is the same both ways:
# tools/ptx_identity.py --only simt_ finds 2 of 493 programs changed, none of the memory zoo; they are the noise
# reference); correct=True everywhere; the tests all pass.
# Run (carry .whl):  CMD="bash benchmarks/session30_remat.sh" bash benchmarks/device_session.sh shell  -> $OUT/s30remat.tgz
S="$OUT/s30remat"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
timeout ${BENCH_TIMEOUT:-60} python3 benchmarks/memory_bound.py --no-tileiras --out "$S/bench_ab" --iters 20 \
  --sizes default --only rope_bf16_llama adamw_f32_bf16_grads softmax_f16_4096x1000 softmax_f16_rows_x1024 \
  layernorm_f16 rmsnorm_f16 --env TILEORCH_REMATERIALIZE_FLOAT_LOADS=0 --env default > "$S/bench_ab.log" 2>&1
echo "[memory_bound.py, REMATERIALIZE_FLOAT_LOADS=0 vs default] rc=$?"
python3 benchmarks/session27_rowred_summary.py "$S" ab
timeout ${TEST_TIMEOUT:-45} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_memory_bound_gpu.py tests/gpu/test_user_sweep15_gpu.py > "$S/tests.log" 2>&1
echo "[tests, default] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20; tail -n 1 "$S/tests.log"
tar czf "$OUT/s30remat.tgz" -C "$OUT" s30remat
