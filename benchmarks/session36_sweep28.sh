# Session 36, user sweep 28 (branch s36-sweep28): correctness on the GPU, no timings.  Every program of
# tileorch.testing.user_programs28 against its numpy reference on ragged shapes (NaN-filled outputs and tails):
# the tier's GEMMs (SwiGLU's two dots of one A, bias / channel scale / clamp, an output stored transposed or into a
# strided slice, a bmm whose B has batch stride 0, a K loop by ct.num_tiles, tf32, a GEMV of N = 16 (staged copy),
# alpha / beta in place, default tile arguments, relu^2, ct.matmul), the dots the tier refuses with a located
# reason (GeGLU from one weight, f32 operands, an operand chosen by an if, LoRA of rank 16: mma.sync), the SIMT
# programs (RMSNorm + residual, softmax with a temperature, log-softmax, top-p, online LSE, rotary on interleaved
# pairs, uint8 / int4 unpacking, int8 quantization, masked mean pooling, depthwise conv1d, histogram by atomics,
# bitonic and rank sorts, GEMV by a reduction, outer products, break-like masks, grid-stride loops, bid(2) batches,
# default arguments, a causal mask, cumprod), and four GEMMs at larger sizes with torch layouts (expand(), a column
# slice, a transposed output) against torch.
# Expect: every test passed (one line per failing test otherwise), well under 240 s.
# Run (carry .whl):  bash benchmarks/session36_sweep28.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s36sweep28"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout 220 python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_user_sweep28_gpu.py \
  > "$S/sweep28_gpu.log" 2>&1
echo "[sweep28 gpu] rc=$?"; grep -E "^(FAILED|ERROR)|passed|failed" "$S/sweep28_gpu.log" | tail -n 40
