# Session 32: after TILEORCH_ATTN_SOFTMAX_EXP=ex2 and TILEORCH_ATTN_K_AHEAD=1 became the defaults (s32-attnperf's
# H100 A/B), the GPU tests of every attention-shaped program set against torch (the natural-exp programs now take
# ex2 in the consumer loop), then the zoo's timings.  Should show: all passed; HF mask ~216+, q-k norm ~222.
# Run (carry .whl):  CMD="bash benchmarks/session32_defaults.sh" bash benchmarks/device_session.sh shell
S="$OUT/s32defaults"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
timeout ${TEST_TIMEOUT:-240} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 12 tests/gpu/test_attention_programs.py \
  tests/gpu/test_attention_programs2.py tests/gpu/test_attention_programs3.py tests/gpu/test_attention_programs4.py \
  tests/gpu/test_attnzoo30_gpu.py tests/gpu/test_attnzoo32_gpu.py > "$S/tests.log" 2>&1
echo "[tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -20; tail -n 1 "$S/tests.log"
timeout ${ZOO_TIMEOUT:-100} python3 benchmarks/attnzoo32.py --iters 20 > "$S/attnzoo32.log" 2>&1
echo "[attnzoo32] rc=$?"; grep -E "TF|GB/s" "$S/attnzoo32.log" | cut -c1-160 | head -14
tar czf "$OUT/s32defaults.tgz" -C "$OUT" s32defaults && rm -rf "$S"
