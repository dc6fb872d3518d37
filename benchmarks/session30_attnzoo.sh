# s30-attnzoo's GPU check (< 120 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session30_attnzoo.sh" bash benchmarks/device_session.sh shell   -> $OUT/s30attnzoo.tgz
# 1. tests/gpu/test_attnzoo30_gpu.py: the 31 programs of tileorch.testing.attnzoo30_programs (27 on the chained
#    tier, 4 on the SIMT path) against torch fp32, NaN-prefilled; each takes its tabled path.  Expected: all pass
#    (the CPU emulator passed every chained one against numpy; bf16 ones ran there as f16 twins).
# 2. benchmarks/attnzoo30.py: four programs at model sizes (GQA [B, S, H, D] 4x4096 32/8 heads d128; a causal
#    1024-key window bf16 d128; soft cap + key lengths + LSE bf16 d128; causal with the query tiles last-first)
#    beside SDPA flash of the same sizes in the same process (plain or causal attention: the speed line, not
#    the same work for the window and the soft cap).  Expected: tileorch_path chained, tileorch_err small
#    (< 2e-2 bf16, < 5e-3 f16).
S="$OUT/s30attnzoo"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
timeout ${TEST_TIMEOUT:-60} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-12} \
  tests/gpu/test_attnzoo30_gpu.py > "$S/tests.log" 2>&1
echo "[s30 attnzoo GPU tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -10
tail -n 1 "$S/tests.log"
timeout ${BENCH_TIMEOUT:-50} python3 benchmarks/attnzoo30.py --iters 20 --out "$S/bench.json" 2>&1 \
  | tee "$S/bench.log" | python3 -c "
import json, sys
for line in sys.stdin:
    try:
        r = json.loads(line)
    except ValueError:
        continue
    print(r.get('program'), r.get('tileorch_path'), 'err', r.get('tileorch_err'), 'ms', r.get('tileorch_ms'),
          'TF', r.get('tileorch_tflops'), '| sdpa ms', r.get('sdpa_flash_ms'), 'TF', r.get('sdpa_flash_tflops'),
          r.get('error', ''))"
tar czf "$OUT/s30attnzoo.tgz" -C "$OUT" s30attnzoo
