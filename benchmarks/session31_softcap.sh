# Session 31 (s31-softcap): the soft-cap attention (session 30: 172 TFLOP/s on an H100 against 450-620 for the other
# chained variants) with the loop's s / cap as one reciprocal a thread and tanh's polynomial under a warp vote,
# beside session 30's code (TILEORCH_UNIFORM_DIV=0 TILEORCH_ATTN_TANH_BRANCH=0), its ablations and SDPA; the GPU
# tests of the zoo (cap +30 / -30); the chained MLP with GELU's tanh, branch on / off (the vote mostly fails there).
# Should show: softcap default well above s30 and nearer no_cap; tests passed; MLP branch on ~ off.
# Run (carry .whl):  CMD="bash benchmarks/session31_gpu_calls.sh softcap" bash benchmarks/device_session.sh shell
S="$OUT/s31softcap"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout ${SOFTCAP_TIMEOUT:-150} python3 benchmarks/session31_softcap.py --out "$S/softcap31.json" 2>&1 | tail -n 30
timeout ${TEST_TIMEOUT:-90} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_attnzoo30_gpu.py 2>&1 | tail -n 6
for b in 1 0; do
  TILEORCH_ATTN_TANH_BRANCH=$b timeout 60 python3 benchmarks/session31_mlp_tanh.py 2>&1 | tail -n 2
done
