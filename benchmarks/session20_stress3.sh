# Session 20, third device call: after the copy (synchronized), snapshot the K-major buffer; after the
# kernel, compare: does the GEMM kernel write into its own B operand, or is the copy already wrong?
# Run: CMD="bash benchmarks/session20_stress3.sh" bash benchmarks/device_session.sh shell   (carry .whl)
S="$OUT/s20_stress3"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
timeout 150 python3 benchmarks/stress_launch_copies.py --procs 15 --seconds 45 --load 2 --variant snapshot \
  --json "$S/stress.jsonl" > "$S/stress_snapshot.log" 2>&1; echo "rc=$?"
python3 - "$S/stress.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    print(d["variant"], d["procs"], "launches", d["launches"], "failures", d["failures"], "crashes", len(d["crashes"]))
    for k, (n, f) in d["by"].items():
        if f or k.startswith("snapshot"): print("   ", k, n, f)
    for c in d["crashes"][:1]: print(c[-800:])
PY
tar czf "$OUT/s20_stress3.tgz" -C "$OUT" s20_stress3
