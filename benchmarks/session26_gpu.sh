# Session 26's first device call (repository root, compiler installed by device_session.sh shell; results under $OUT):
#   1. the GPU tests whose torch references session 25 fixed after its run, and the ftoi fix (never re-run on a GPU):
#      sweeps 19 and 21 (whole files), sweep 8's int8 requant epilogue, sweep 17's NaN-ignoring max/argmax, sweep 6's
#      fused LoRA (now on the GEMM tier)
#   2. benchmarks/session25_review.sh (odd-width column slices staged; register A on special values, bit for bit vs staged)
#   3. attention baseline, non-causal and causal, d64 / d128 at 1k and 4k (issue 20's rows), tileorch vs SDPA
# Run (carry .whl):  CMD="bash benchmarks/session26_gpu.sh" bash benchmarks/device_session.sh shell
S="$OUT/s26_gpu"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
echo "=== tests ($(date -u +%T))"
timeout ${T1:-200} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 \
  tests/gpu/test_user_sweep19_gpu.py tests/gpu/test_user_sweep21_gpu.py \
  tests/gpu/test_user_sweep8_gpu.py::test_mm_int8_requant_epilogue \
  tests/gpu/test_user_sweep17_gpu.py::test_nan_inf_max_argmax_against_torch \
  tests/gpu/test_user_sweep6_gpu.py::test_mm_lora_fused > "$S/tests.log" 2>&1
echo "[tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20; tail -n 1 "$S/tests.log"
echo "=== review25 ($(date -u +%T))"
timeout 90 bash benchmarks/session25_review.sh 2>&1 | tail -n 8
echo "=== attention ($(date -u +%T))"
timeout ${T3:-200} python3 benchmarks/attention.py --dims 64,128 --seqs 1024,4096 --causal both --iters 10 \
  --out "$S/attention" 2>&1 | tail -n 24
[ -f "$S/failures.log" ] && head -c 4000 "$S/failures.log"
echo "=== done ($(date -u +%T))"
