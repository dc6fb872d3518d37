# Session 20, second device call: bisect the launch-time-copy failures found by the first
# (benchmarks/session20_stress.sh): copies never evicted, a fresh copy buffer per launch, programs
# without a copy only, and one process alone (with the GPU loaded) to see if concurrency is needed.
# Run: CMD="bash benchmarks/session20_stress2.sh" bash benchmarks/device_session.sh shell   (carry .whl)
S="$OUT/s20_stress2"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
run() {  # variant procs seconds
  timeout 150 python3 benchmarks/stress_launch_copies.py --procs $2 --seconds $3 --load 2 --variant $1 \
    --json "$S/stress.jsonl" > "$S/stress_$1_$2.log" 2>&1
  echo "variant $1 procs $2 rc=$?"
}
run base 15 40; run noevict 15 35; run fresh_copy 15 35; run control 15 35; run base 1 35
python3 - "$S/stress.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    print(d["variant"], d["procs"], "launches", d["launches"], "failures", d["failures"], "crashes", len(d["crashes"]))
    for k, (n, f) in d["by"].items():
        if f: print("   ", k, n, f)
    for f in d["first_failures"][:4]:
        print("   ", {k: f.get(k) for k in ("name", "shape", "prep_miss", "copy_miss", "copies", "nan_cols_whole", "nan_rows_whole", "again_unwritten")})
    for c in d["crashes"][:1]: print(c[-800:])
PY
tar czf "$OUT/s20_stress2.tgz" -C "$OUT" s20_stress2
