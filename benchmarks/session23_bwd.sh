# Session 23, s23-bwd: the FlashAttention backward kernels (attention set 4's bwd_dq and bwd_dkdv on the
# tensor-core tier: first dots with their own A tiles, a second dot's B read in a first dot's stage, a chain
# feeding two accumulators) on the GPU.
# Run from the repository root on the device with the compiler installed (carry .whl), e.g.
#   CMD="bash benchmarks/session23_bwd.sh" bash benchmarks/device_session.sh shell   -> $OUT/s23_bwd/
# 1. correctness against torch fp32 autograd (NaN-prefilled, the path of each table entry):
#    attention set 4's backward tests (dQ and dK/dV of every head dim / type / causal entry now on TMA +
#    WGMMA), sweep 5's attn_bwd_dq / attn_bwd_dkdv / attn_two_heads_shared_kv, sweep 3's mlp_geglu_two_inputs,
#    set 2's attn_differential (the same mechanisms; every test also asserts the path is "chained");
# 2. TFLOP/s of dQ and dK/dV (chained) vs the SIMT path they replace, and of both kernels as one backward vs
#    torch SDPA flash backward, fp16, BH 16 x S 4096, d 64 and 128, not causal (CAUSAL=0,1 adds causal)
#    (benchmarks/attention_backward.py).
# Under 150 s: the tests ~40 s (8 workers), the benchmark ~60 s (4 chained + 4 SIMT compiles, 20 launches each).
S="$OUT/s23_bwd"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
timeout ${TEST_TIMEOUT:-60} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 \
  "tests/gpu/test_attention_programs4.py::test_backward" "tests/gpu/test_user_sweep5_gpu.py::test_attn_bwd_dq" \
  "tests/gpu/test_user_sweep5_gpu.py::test_attn_bwd_dkdv" "tests/gpu/test_user_sweep5_gpu.py::test_attn_two_heads_shared_kv" \
  "tests/gpu/test_user_sweep3_gpu.py::test_mlp_geglu_two_inputs" "tests/gpu/test_attention_programs2.py::test_attn_differential" \
  > "$S/gpu_tests.log" 2>&1
echo "tests rc=$?"; grep -E " FAILED| ERROR" "$S/gpu_tests.log" | head -20; tail -n 2 "$S/gpu_tests.log"
timeout ${BENCH_TIMEOUT:-85} python3 benchmarks/attention_backward.py --shapes ${SHAPES:-16x4096x64,16x4096x128} \
  --causal ${CAUSAL:-0} --tiles ${TILES:-64x64} --iters 20 --out "$S/attention_backward" > "$S/bench.log" 2>&1
echo "bench rc=$?"
python3 - "$S/bench.log" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    cols = [f"{k}={r[k]}" for k in ("dq_path", "dq_auto_tflops", "dq_simt_tflops", "dq_vs_simt", "dq_auto_err",
                                    "dkdv_path", "dkdv_auto_tflops", "dkdv_vs_simt", "tileorch_bwd_tflops",
                                    "sdpa_flash_bwd_tflops") if k in r]
    errs = [f"{k}={r[k][:80]}" for k in r if k.endswith("_error")]
    print(f"bh{r['bh']} s{r['seq']} d{r['d']} causal={r['causal']} tiles={r['tiles']}:", " ".join(cols), *errs)
PY
tail -n 3 "$S/bench.log" | grep -v "^{"
