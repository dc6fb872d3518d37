# Session 20: verify the launch-time copy fix (torch's own stream object for the launch stream) on the
# GPU: the stress probe (snapshot and base variants, 15 processes + 2 loading the GPU), the ordering
# test, the tier zoo's copy programs, sweep 8's fp8 GEMMs and session 19's unverified GPU-test fixes.
# Run: CMD="bash benchmarks/session20_fixcheck.sh" bash benchmarks/device_session.sh shell   (carry .whl)
S="$OUT/s20_fixcheck"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
python3 -c "import torch; s=torch.cuda.ExternalStream(0); d=torch.cuda.default_stream(); print('ExternalStream(0) == default_stream:', s == d, 'ids', s.stream_id, d.stream_id, 'handles', s.cuda_stream, d.cuda_stream)"
for v in snapshot base; do
  timeout 100 python3 benchmarks/stress_launch_copies.py --procs 15 --seconds 30 --load 2 --variant $v \
    --json "$S/stress.jsonl" > "$S/stress_$v.log" 2>&1; echo "stress $v rc=$?"
done
python3 - "$S/stress.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    print(d["variant"], d["procs"], "launches", d["launches"], "copy launches", d["copy_launches"], "failures", d["failures"], "crashes", len(d["crashes"]))
    for k, (n, f) in d["by"].items():
        if f or k.startswith("snapshot"): print("   ", k, n, f)
    for f in d["first_failures"][:3]: print("   ", f)
    for c in d["crashes"][:1]: print(c[-600:])
PY
export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
timeout ${TEST_TIMEOUT:-150} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 \
  tests/gpu/test_launch_copy_ordering_gpu.py tests/gpu/test_user_sweep8_gpu.py tests/gpu/test_user_sweep6_gpu.py \
  "tests/gpu/test_tier_programs.py::test_dot_program_on_tensor_cores" \
  tests/gpu/test_attention_programs.py::test_attention_snake_default_launch > "$S/gpu_tests.log" 2>&1
echo "tests rc=$?"; grep -cE " PASSED" "$S/gpu_tests.log"; grep -E " FAILED| ERROR" "$S/gpu_tests.log" | head -20; tail -n 2 "$S/gpu_tests.log"
[ -f "$S/failures.log" ] && head -c 2500 "$S/failures.log"
tar czf "$OUT/s20_fixcheck.tgz" -C "$OUT" s20_fixcheck
