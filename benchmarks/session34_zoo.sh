# s34-zoo's GPU check (< 240 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session34_zoo.sh" bash benchmarks/device_session.sh shell   -> $OUT/s34zoo.tgz
# tileas-stack-query-heads (session 34, on by default): a loop over the query heads sharing one K / V head (GQA, MQA)
# runs F heads at a time as one chain of F x BM = 128 rows (one (1, F, BM, D) Q box, each K / V tile read once for
# the F heads; F = 2 at 64-row tiles, 4 at 32) instead of one BM-row chain instance per head
# (TILEORCH_ATTN_STACK_HEADS=0: the kernel before).
# 1. GPU tests: tests/gpu/test_attnzoo34_gpu.py (8 GQA loop programs, stacked and with the switch off) + the
#    earlier heads loops now stacked (cover26 attn_gqa_heads_loop, zoo 30 zoo_mqa_loop_over_heads), NaN-prefilled
#    against torch fp32.  Expected: all pass (the PTX emulator passed them against numpy).
# 2. benchmarks/session34_zoo.py, one process: each program stacked (default) vs unstacked (=0, same process,
#    alternating) vs torch SDPA fp16 (K/V expanded).  Expected: tm 128 vs 64, err < 5e-3; stacked faster than
#    unstacked (session 28's unstacked GQA heads loop: 349.5 TFLOP/s = 0.757x torch on an H200-era run).
S="$OUT/s34zoo"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
timeout ${TEST_TIMEOUT:-100} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-12} \
  tests/gpu/test_attnzoo34_gpu.py "tests/gpu/test_cover26_gpu.py" "tests/gpu/test_attnzoo30_gpu.py" \
  -k "gqa or mqa or z34" > "$S/tests.log" 2>&1
echo "[s34 zoo GPU tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -12
tail -n 1 "$S/tests.log"
timeout ${BENCH_TIMEOUT:-130} python3 benchmarks/session34_zoo.py --iters ${ITERS:-20} --out "$S/bench.json" 2>&1 \
  | tee "$S/bench.log" | python3 -c "
import json, sys
for line in sys.stdin:
    try:
        r = json.loads(line)
    except ValueError:
        continue
    print('[s34 stack heads]', r.get('program'), 'stacked tm', r.get('tileorch_tm'), 'ms', r.get('tileorch_ms'),
          'TF', r.get('tileorch_tflops'), 'err', r.get('tileorch_rel_err'), '| default (auto) tm', r.get('default_tm'), '| unstacked tm', r.get('tileorch_unstacked_tm'),
          'ms', r.get('tileorch_unstacked_ms'), 'TF', r.get('tileorch_unstacked_tflops'), '| torch sdpa ms', r.get('torch_ms'),
          'TF', r.get('torch_tflops'), '| stacked/torch', round(r['torch_ms'] / r['tileorch_ms'], 3) if r.get('tileorch_ms') and r.get('torch_ms') else None,
          'stacked/unstacked', round(r['tileorch_unstacked_ms'] / r['tileorch_ms'], 3) if r.get('tileorch_ms') and r.get('tileorch_unstacked_ms') else None,
          r.get('error', ''), r.get('tileorch_error', ''), r.get('tileorch_unstacked_error', ''))"
tar czf "$OUT/s34zoo.tgz" -C "$OUT" s34zoo
