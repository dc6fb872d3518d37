# Session 37 (lead): the first device call after two sessions without one, < 580 s, most valuable first:
#   [suite]  the whole GPU suite (every twin owed since session 35: sweeps 27/28, the attention sweep 36, the
#            row-groups switch fixes of b21852a9), SUITE_TIMEOUT (330 s);
#   [d128]   issue 20's d128 1k target (550; ~543 last measured): default vs TILEORCH_ATTN_PEELED_MASKS=1 vs the
#            default again (run-to-run spread), 1k and 4k, SDPA flash and cuDNN beside (same process);
#   [d64]    default vs peeled at 1k / 4k;
#   [f64]    the f64 trig accuracy with session 35's fixed ulp count.
# Run (carry .whl):  CMD="bash benchmarks/session37_lead.sh" TAIL=90 bash benchmarks/device_session.sh shell
S="$OUT/s37lead"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
timeout ${SUITE_TIMEOUT:-330} python3 -m pytest -q -n 14 -p no:cacheprovider -rfE tests/gpu > "$S/gpu_suite.log" 2>&1
echo "[suite] rc=$?"; grep -E "^(FAILED|ERROR) " "$S/gpu_suite.log" | sort -u | head -30; tail -n 1 "$S/gpu_suite.log"
ab() {  # name timeout dims variants
  timeout "$2" python3 benchmarks/attention_variants.py --dims "$3" --seqs 1024,4096 --causal no --tiles 128x128 \
    --iters 20 --flash --variants "$4" --out "$S/$1" > "$S/$1.log" 2>&1
  echo "[$1] rc=$?"; grep -A8 "^   d " "$S/$1.log" || tail -n 5 "$S/$1.log"
}
ab d128 ${D128:-40} 128 "default:;peeled:TILEORCH_ATTN_PEELED_MASKS=1;default2:"
ab d64 ${D64:-40} 64 "default:;peeled:TILEORCH_ATTN_PEELED_MASKS=1;default2:"
timeout 100 python3 benchmarks/session35_f64trig.py check 2>&1 | tee "$S/f64_check.log" | grep -E "^\[check\]|Error|error" | tail -n 16
echo "[f64 check] rc=${PIPESTATUS[0]}"
