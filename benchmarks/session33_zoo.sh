# s33-zoo's GPU check (< 240 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session33_zoo.sh" bash benchmarks/device_session.sh shell   -> $OUT/s33zoo.tgz
# Zoo 32 programs that session 33 moved from the SIMT path (a located refusal) to the chained tensor-core kernel:
#   z32_two_mha_heads (tileas-split-chains: two heads a program -> two programs of one chain, grid axis 0 x 2);
#   z32_lse_only (tileas-row-statistics-chain: the LSE alone on the chained kernel with an unread second dot; its
#   TFLOP/s count the program's one dot, 2 rows keys D; SDPA's line is the whole forward: a speed line only).
# 1. tests/gpu/test_attnzoo32_gpu.py + test_attnzoo30_gpu.py against torch fp32, NaN-prefilled; each program takes its
#    tabled path (the moved ones: "chained").  Expected: all pass (the PTX emulator passed them against numpy).
# 2. benchmarks/attnzoo32.py --only <moved>: the chained kernel beside SDPA flash in the same process (one line each),
#    then the same programs with --schedule simt (the SIMT path they took before this session), same process run.
#    Expected: tileorch_path chained, unwritten 0, err < 5e-3; TFLOP/s near the plain attention's (zoo 32's
#    keys-last-first plain program: ~411 on the H100 at 09:18), several times the SIMT line.
S="$OUT/s33zoo"; mkdir -p "$S"
MOVED=${MOVED:-z32_two_mha_heads,z32_lse_only}
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
timeout ${TEST_TIMEOUT:-110} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-12} \
  tests/gpu/test_attnzoo32_gpu.py tests/gpu/test_attnzoo30_gpu.py > "$S/tests.log" 2>&1
echo "[s33 zoo GPU tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -12
tail -n 1 "$S/tests.log"
summary() {
  python3 -c "
import json, sys
for line in sys.stdin:
    try:
        r = json.loads(line)
    except ValueError:
        continue
    print('$1', r.get('program'), r.get('tileorch_path'), 'unwritten', r.get('unwritten'), 'err', r.get('tileorch_err'),
          'ms', r.get('tileorch_ms'), 'TF', r.get('tileorch_tflops'), '| sdpa ms', r.get('sdpa_flash_ms'), 'TF',
          r.get('sdpa_flash_tflops'), 'same_work', r.get('sdpa_same_work'), r.get('error', ''))"
}
timeout ${BENCH_TIMEOUT:-60} python3 benchmarks/attnzoo32.py --iters 20 --only "$MOVED" --out "$S/chained.json" 2>&1 \
  | tee "$S/chained.log" | summary "[chained]"
timeout ${SIMT_TIMEOUT:-60} python3 benchmarks/attnzoo32.py --iters 5 --schedule simt --only "$MOVED" \
  --out "$S/simt.json" 2>&1 | tee "$S/simt.log" | summary "[simt: the path before]"
tar czf "$OUT/s33zoo.tgz" -C "$OUT" s33zoo
