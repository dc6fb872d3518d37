# s32-attnperf's GPU check (< 240 s; run from the repository root with the compiler installed, carry .whl), e.g.
#   CMD="bash benchmarks/session32_attnperf.sh" bash benchmarks/device_session.sh shell   -> $OUT/s32attnperf.tgz
# The three slow programs of session 32's attention zoo (HF additive f16 mask 175 vs SDPA 304 TFLOP/s, ALiBi from
# position ids 170 vs 266, q-k RMSNorm 197 vs 300 in the 09:18 run) and a textbook-shaped control
# (z32_keys_last_tile_first, 411), each beside SDPA flash in the same process, under:
#   default                          the merged compiler;
#   TILEORCH_ATTN_SOFTMAX_EXP=ex2    the consumer loop's online-softmax natural exp as ex2.approx(x log2 e)
#                                    (loop_softmax_exp.py; only programs written with ct.exp change: the HF mask);
#   TILEORCH_MATH=approx             every exp approximate (the HF mask's ceiling from the exp form alone).
# Expected: HF mask ex2 well above default (CPU: SASS per interior key tile 783 -> 577; textbook 291) and near
# TILEORCH_MATH=approx; ALiBi / q-k norm / control unchanged within noise; err < 5e-3 (f16) / 2e-2 (bf16).
# Then the GPU test of the HF-mask program under the switch (NaN-prefilled, torch fp32 reference).
S="$OUT/s32attnperf"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
ZOO=z32_hf_additive_mask_f16,z32_alibi_position_ids_bf16,z32_qk_rmsnorm,z32_keys_last_tile_first
show() {  # one line per program: label, path, error, ms, TFLOP/s | SDPA ms, TFLOP/s (same process)
  python3 -c "
import json, sys
for line in sys.stdin:
    try:
        r = json.loads(line)
    except ValueError:
        continue
    print('[$1]', r.get('program'), r.get('tileorch_path'), 'unwritten', r.get('unwritten'), 'err',
          r.get('tileorch_err'), 'ms', r.get('tileorch_ms'), 'TF', r.get('tileorch_tflops'), '| sdpa ms',
          r.get('sdpa_flash_ms'), 'TF', r.get('sdpa_flash_tflops'), r.get('error', ''))"
}
timeout ${BENCH_TIMEOUT:-80} python3 benchmarks/attnzoo32.py --iters 20 --only $ZOO --out "$S/default.json" 2>&1 \
  | tee "$S/default.log" | show default
TILEORCH_ATTN_SOFTMAX_EXP=ex2 timeout ${BENCH_TIMEOUT:-80} python3 benchmarks/attnzoo32.py --iters 20 --only $ZOO \
  --out "$S/ex2.json" 2>&1 | tee "$S/ex2.log" | show ATTN_SOFTMAX_EXP=ex2
TILEORCH_MATH=approx timeout ${ABLATE_TIMEOUT:-40} python3 benchmarks/attnzoo32.py --iters 20 \
  --only z32_hf_additive_mask_f16 2>&1 | show MATH=approx
TILEORCH_ATTN_SOFTMAX_EXP=ex2 timeout ${TEST_TIMEOUT:-40} python3 -m pytest -q -p no:cacheprovider -rfE -n 4 \
  tests/gpu/test_attnzoo32_gpu.py -k "hf_additive" > "$S/tests_ex2.log" 2>&1
echo "[s32 attnperf GPU test, hf mask under ATTN_SOFTMAX_EXP=ex2] rc=$?"; tail -n 1 "$S/tests_ex2.log"
tar czf "$OUT/s32attnperf.tgz" -C "$OUT" s32attnperf
