# Session 34, user sweep 26 (branch s34-sweep26): correctness on the GPU, no timings.  Every program of
# tileorch.testing.user_programs26 against its numpy reference on ragged shapes (NaN-filled outputs and tails):
# 11 tier GEMMs (MoE expert table with [E, N, K] weights, MoE combine by atomics, bias + GELU(tanh) + dropout mask,
# a K loop of zero trips, a 13-parameter epilogue, ct.Constant-specialised linear layers, 128^3 tiles, an
# implicit-GEMM convolution with a gathered A, a GEMM + row softmax; a stride-0 broadcast B and fewer MoE tokens
# than rows run on the SIMT path after a launch warning), the six dots the tier refuses (int4 dequant in the K
# loop, a (TM, 1, TK) head slab, a ct.scatter / ct.atomic_cas / atomic_max beside C -- the scatter and the CAS were
# silently dropped by the tier before this session: mma.sync after a located warning), 27 SIMT programs (RoPE, KV-cache appends,
# int4 / fp8 quantization, all -inf softmax rows, layernorm 1024, Welford, histogram, scans, depthwise conv, 3-D
# grids, 14 arguments, tile sizes 1/2/4/512/1024, top-4 router, hash dropout, pack/unpack bytes, ct.function,
# IndexedWithInt64), and two GEMMs at larger sizes against torch (conv2d 40x56x64->128, K tiles 0 and 16).
# Expect: every test passed (one line per failing test otherwise), well under 240 s.
# Run (carry .whl):  bash benchmarks/session34_sweep26.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s34sweep26"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout 220 python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_user_sweep26_gpu.py \
  > "$S/sweep26_gpu.log" 2>&1
echo "[sweep26 gpu] rc=$?"; grep -E "^(FAILED|ERROR)|passed|failed" "$S/sweep26_gpu.log" | tail -n 40
