# Session 22 computed-operand probe (rmsnorm_gamma_gemm_f16 at 0.737x tileiras, 2026-12-05 H200 run):
# benchmarks/tile_programs.py once per setting of TILEORCH_COMPUTED_OPERAND (tileiras beside when staged),
# then the switch's GPU tests.
#   default                            K-indexed vectors (gamma[k], a group's scale row) loaded at the top of
#                                      the K step they feed: their L2 latency between the stage wait and the
#                                      transform every K step
#   TILEORCH_COMPUTED_OPERAND=prefetch loaded one K step ahead, carried by the consumer's K loop
#   ...=prefetch,pairs                 and f16 values of the operand's type packed as bits, not through f32
#                                      (SASS instructions per consumer K step: rmsnorm_gamma 244 -> 234,
#                                      linear_w8a16_channel_scale 223 -> 210)
#   ...=prefetch,pairs,rows            and, for a computed A on two consumer warp groups (relu_a, a8_dequant,
#                                      rmsnorm_gamma), each warp group computes the 64 A rows its WGMMAs read
#                                      and waits on its own named barrier (12 / 13, 128 threads), not barrier 3
#                                      over both: the warp groups' transforms and WGMMAs no longer in lockstep
# prefetch changes rmsnorm_gamma_gemm_f16 and gemm_w8a16_group128_f16 (K-indexed vectors), pairs rmsnorm_gamma and
# linear_w8a16_channel_scale_f16 (f16 products), rows the three computed-A programs; linear_i8_dequant_bf16 compiles
# to the same PTX under every setting (a control for run-to-run noise).
# Run (tileiras staged first with device_session.sh stage_tc, else the tileiras column is skipped; carry .whl):
#   CMD="bash benchmarks/session22_prologue_probe.sh" bash benchmarks/device_session.sh shell  -> $OUT/s22prologue.tgz
# At most 4 x 50 + 80 s of timeouts (a variant's run is about 30 s: 6 compiles, tileiras's, 20 launches each).
S="$OUT/s22prologue"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
PROGRAMS=${PROGRAMS:-rmsnorm_gamma_gemm_f16,gemm_w8a16_group128_f16,relu_a_gemm_f16,a8_dequant_gemm_f16,linear_i8_dequant_bf16,linear_w8a16_channel_scale_f16}
for variant in default TILEORCH_COMPUTED_OPERAND=prefetch TILEORCH_COMPUTED_OPERAND=prefetch+pairs \
    TILEORCH_COMPUTED_OPERAND=prefetch+pairs+rows; do
  label=$(echo "$variant" | tr '=,' '_-')
  env $(echo "$variant" | sed 's/^default$//' | tr '+' ',') timeout ${TILE_TIMEOUT:-50} python3 benchmarks/tile_programs.py \
    --out "$S/tile_$label" --iters 20 --sizes 4096x4096x4096 --programs "$PROGRAMS" 2>&1 \
    | tee "$S/tile_programs_$label.log" | tail -n 9
done
# the switch on the GPU: torch fp32 references, NaN-prefilled outputs, ragged M/N/K, more work tiles than SMs
timeout ${TEST_TIMEOUT:-80} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_computed_operand_prefetch_gpu.py 2>&1 | tee "$S/gpu_tests.log" | tail -n 6
tar czf "$OUT/s22prologue.tgz" -C "$OUT" s22prologue
