# Session 23 (s23-rega): a computed A as WGMMA's register A operand (tileas/register_a_operand.py, now the default)
# against the staged A (TILEORCH_COMPUTED_OPERAND=staged, the kernels sessions 17-22 ran), back to back on one
# machine, tileiras beside (benchmarks/tile_programs.py at 4096^3; its tileiras column is skipped when tileiras was
# not staged with device_session.sh stage_tc); then the GPU tests of the changed programs (torch fp32 references,
# NaN-prefilled outputs, ragged M/N/K; both paths in tests/gpu/test_register_a_gpu.py, f16 and bf16).
#   rmsnorm_gamma_gemm_f16  (a * gamma[k]) @ b   register A (the default now)
#   relu_a_gemm_f16         relu(a) @ b          register A
#   a8_dequant_gemm_f16     int8 a * s -> f16    register A (64-byte swizzled raw rows)
#   linear_i8_dequant_bf16  int8 x int8, dequant in the epilogue: no computed operand, same PTX under both
#                           settings (a control for run-to-run noise)
# Run (carry .whl):  CMD="bash benchmarks/session23_rega.sh" bash benchmarks/device_session.sh shell
#   -> $OUT/s23rega.tgz; prints each variant's table and the tests' summary.  Timeouts: 2 x 45 + 55 s.
S="$OUT/s23rega"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
PROGRAMS=${PROGRAMS:-rmsnorm_gamma_gemm_f16,relu_a_gemm_f16,a8_dequant_gemm_f16,linear_i8_dequant_bf16}
for variant in default staged; do
  env $([ "$variant" = staged ] && echo TILEORCH_COMPUTED_OPERAND=staged) timeout ${TILE_TIMEOUT:-45} \
    python3 benchmarks/tile_programs.py --out "$S/tile_$variant" --iters 20 --sizes 4096x4096x4096 \
    --programs "$PROGRAMS" 2>&1 | tee "$S/tile_programs_$variant.log" | grep -v "^{" | tail -n 8
done
timeout ${TEST_TIMEOUT:-55} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_register_a_gpu.py "tests/gpu/test_computed_b_gpu.py::test_relu_a" \
  "tests/gpu/test_computed_b_gpu.py::test_int8_activations_dequantized" \
  "tests/gpu/test_computed_b_gpu.py::test_a_times_gamma_per_k" "tests/gpu/test_computed_b_gpu.py::test_a_and_b_computed" \
  2>&1 | tee "$S/gpu_tests.log" | tail -n 8
tar czf "$OUT/s23rega.tgz" -C "$OUT" s23rega
