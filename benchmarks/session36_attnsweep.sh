# s36-attnsweep's GPU check (< 240 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session36_attnsweep.sh" bash benchmarks/device_session.sh shell   -> $OUT/s36attnsweep.tgz
# Session 36's attention-shaped sweep (tileorch.testing.attnsweep36_programs, 45 programs: head dims 48 / 80 / 96 /
# 160, cross attention with ragged Sq != Sk (bottom-right causal too), GQA on sequence-major arrays, [B, S, H, D] K / V as strided views of a packed buffer on a 3-D grid,
# key tiles 16-256, K through order= and stored pre-transposed, two-bound windows, prefix-LM, document ids, key
# padding from lengths, hashed dropout, runtime / folded / pre-scaled scales, Triton's tutorial, log2 and natural
# LSE, fp32 and bf16 outputs, O stored transposed (chained since this branch); the two-pass softmax on the SIMT
# path after a located warning).
# 1. tests/gpu/test_attnsweep36_gpu.py: every program on its ragged spec sizes, NaN-prefilled with an unwritten tail,
#    against torch fp32 (and SDPA fp32 with the same boolean mask), each on its tabled path.  Expected: all pass (the
#    PTX emulator passed the 44 chained ones against numpy; the bf16 ones ran there as f16 twins).
# 2. benchmarks/attnsweep36.py: one speed line per new chained kernel shape at B 4 x H 16 x S 4096 (cross: Sq 1024)
#    beside SDPA in the same process.  Expected: tileorch_path chained, unwritten 0, err < 5e-3 (bf16 < 3e-2).
OUT=${OUT:-/tmp/out}; S="$OUT/s36attnsweep"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
timeout ${TEST_TIMEOUT:-80} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-12} \
  tests/gpu/test_attnsweep36_gpu.py > "$S/tests.log" 2>&1
echo "[s36 attnsweep GPU tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -12
grep -E "^E  .*(Error|assert|Mismatch)" "$S/tests.log" | sort | uniq -c | sort -rn | head -6
tail -n 1 "$S/tests.log"
timeout ${BENCH_TIMEOUT:-140} python3 benchmarks/attnsweep36.py --iters ${ITERS:-20} --out "$S/bench.json" 2>&1 \
  | tee "$S/bench.log" | python3 -c "
import json, sys
for line in sys.stdin:
    try:
        r = json.loads(line)
    except ValueError:
        continue
    print('[s36 sweep]', r.get('program'), r.get('tileorch_path'), 'unwritten', r.get('unwritten'),
          'err', r.get('tileorch_err'), 'ms', r.get('tileorch_ms'), 'TF', r.get('tileorch_tflops'),
          '| sdpa ms', r.get('sdpa_ms'), 'TF', r.get('sdpa_tflops'), 'sdpa/tileorch', r.get('vs_sdpa'),
          r.get('error', ''), r.get('sdpa_error', ''))"
echo "[s36 attnsweep bench] rc=${PIPESTATUS[0]}"
tar czf "$OUT/s36attnsweep.tgz" -C "$OUT" s36attnsweep
