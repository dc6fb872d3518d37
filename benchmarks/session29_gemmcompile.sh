# s29-gemmcompile's GPU check (< 120 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session29_gemmcompile.sh" bash benchmarks/device_session.sh shell
# TILEORCH_GEMM_SHARED_CONSUMER=1 (opt-in, kernels/gemm/build.py shared_consumer): a plain GEMM's two consumer warp
# groups run one body (the warp group from %tid at run time, one 256-thread epilogue barrier) instead of one body
# each.  On the CPU (2-core machine): `tileorch gemm 4096 4096 4096 --compile` 0.93-1.02 -> 0.64-0.72 CPU s, ptxas
# 0.22 -> 0.13 s, 168 registers, 0 spills; the PTX emulator's C is the default kernel's bit for bit.  Its SASS differs
# (offsets from a register instead of immediates): this call measures what that costs on the GPU.
# Expected: "rel_err" ~1e-3 both ways; "ratio" (vs cuBLAS) of switch=1 within the run-to-run spread of switch=0
# (the mainloop is the same WGMMA sequence); then tests/gpu/test_gemm.py with the switch on: all pass.
# Writes $OUT/s29_gemmcompile/{bench_<shape>_<switch>_<round>.log,gpu_tests.log}; prints one line per run.
S="$OUT/s29_gemmcompile"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$S/device.txt"
for round in 1 2; do
  for shape in "4096 4096 4096" "8192 8192 8192" "2048 2048 2048"; do
    for v in 0 1; do
      tag="$(echo $shape | tr ' ' x)_${v}_$round"
      TILEORCH_GEMM_SHARED_CONSUMER=$v timeout ${BENCH_TIMEOUT:-25} python3 -m tileorch gemm $shape --bench \
        > "$S/bench_$tag.log" 2>&1
      echo "$shape switch=$v round $round rc=$? $(grep -E 'relative error|TFLOP' "$S/bench_$tag.log" | tr '\n' ' ')"
    done
  done
done
TILEORCH_GEMM_SHARED_CONSUMER=1 timeout ${TEST_TIMEOUT:-40} python3 -m pytest -q -p no:cacheprovider -rfE \
  -n ${WORKERS:-8} tests/gpu/test_gemm.py > "$S/gpu_tests.log" 2>&1
echo "GPU tests (switch on) rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
exit 0
