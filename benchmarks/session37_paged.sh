# s37-paged's GPU check (< 240 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session37_paged.sh" bash benchmarks/device_session.sh shell   -> $OUT/s37paged.tgz
# Session 37's paged-KV / decode set (tileorch.testing.attnpaged37_programs, 17 programs: vLLM [blocks, bs, H, D],
# head-major and flat caches, the page a key tile (ct.gather / .item()), a page of 2 key tiles (j % 2 of page j // 2,
# and the same walked by two loops: flattened since this branch), two 32-slot pages joined by ct.cat and K / V
# gathered slot by slot from 16- / 32-slot pages (both one TMA box per page since this branch: were SIMT), 16-slot
# pages as 16-key tiles, GQA rows 8 / 16 / 32 / 64, split-KV + combine (the combine on the SIMT path).
# 1. tests/gpu/test_attnpaged37_gpu.py: every program on its spec sizes, NaN-prefilled with an unwritten tail,
#    against numpy float64 (and SDPA fp32 on the gathered K / V), each on its tabled path.  Expected: all pass (the
#    PTX emulator passed the 16 chained ones against numpy; bf16 ran there as its f16 twin).
# 2. benchmarks/session37_paged.py: one speed line per chained kernel at decode sizes (B 32 x N 4096 keys x H_kv 8,
#    d128) beside SDPA on the pre-gathered K / V in the same process (and gather + SDPA).  Expected: tileorch_path
#    chained, unwritten 0, err < 5e-3 (bf16 < 3e-2); the open question is the page-sized boxes' cost (16-row boxes
#    at 16-slot pages vs 64-row boxes at 64-slot pages, same bytes).
OUT=${OUT:-/tmp/out}; S="$OUT/s37paged"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
timeout ${TEST_TIMEOUT:-90} python3 -m pytest -q -p no:cacheprovider -rfE -n ${WORKERS:-12} \
  tests/gpu/test_attnpaged37_gpu.py > "$S/tests.log" 2>&1
echo "[s37 paged GPU tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -12
grep -E "^E  .*(Error|assert|Mismatch)" "$S/tests.log" | sort | uniq -c | sort -rn | head -6
tail -n 1 "$S/tests.log"
timeout ${BENCH_TIMEOUT:-130} python3 benchmarks/session37_paged.py --iters ${ITERS:-20} --out "$S/bench.json" 2>&1 \
  | tee "$S/bench.log" | python3 -c "
import json, sys
for line in sys.stdin:
    try:
        r = json.loads(line)
    except ValueError:
        continue
    print('[s37 paged]', r.get('program'), r.get('tileorch_path'), 'unwritten', r.get('unwritten'),
          'err', r.get('tileorch_err'), 'ms', r.get('tileorch_ms'), 'GB/s', r.get('tileorch_GBps'),
          '| sdpa(gathered) ms', r.get('sdpa_ms'), 'GB/s', r.get('sdpa_GBps'), 'sdpa/tileorch', r.get('vs_sdpa'),
          '| gather+sdpa ms', r.get('gather_sdpa_ms'), r.get('error', ''), r.get('sdpa_error', ''))"
echo "[s37 paged bench] rc=${PIPESTATUS[0]}"
tar czf "$OUT/s37paged.tgz" -C "$OUT" s37paged
