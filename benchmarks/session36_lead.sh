# Session 36 (lead): one device call, < 560 s: the whole GPU suite (every twin: sweeps 27/28, the attention sweep 36,
# the row-groups switch tests fixed in b21852a9), the f64 trig accuracy check with the fixed ulp count, and the
# attention sweep's speed lines beside SDPA.
# Run (carry .whl):  CMD="bash benchmarks/session36_lead.sh" TAIL=90 bash benchmarks/device_session.sh shell
S="$OUT/s36lead"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee "$S/device.txt"
timeout ${SUITE_TIMEOUT:-330} python3 -m pytest -q -n 14 -p no:cacheprovider -rfE tests/gpu > "$S/gpu_suite.log" 2>&1
echo "[suite] rc=$?"; grep -E "^(FAILED|ERROR) " "$S/gpu_suite.log" | sort -u | head -30; tail -n 1 "$S/gpu_suite.log"
timeout 100 python3 benchmarks/session35_f64trig.py check 2>&1 | tee "$S/f64_check.log" | grep -E "^\[check\]|Error|error" | tail -n 16
echo "[f64 check] rc=${PIPESTATUS[0]}"
timeout 110 python3 benchmarks/attnsweep36.py --iters 20 --out "$S/attnsweep_bench.json" > "$S/attnsweep_bench.log" 2>&1
echo "[attnsweep bench] rc=$?"; python3 - "$S/attnsweep_bench.log" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    print('[s36 sweep]', r.get('program'), r.get('tileorch_path'), 'unwritten', r.get('unwritten'), 'err',
          r.get('tileorch_err'), 'TF', r.get('tileorch_tflops'), '| sdpa TF', r.get('sdpa_tflops'),
          'sdpa/tileorch', r.get('vs_sdpa'), r.get('error', ''))
PY
