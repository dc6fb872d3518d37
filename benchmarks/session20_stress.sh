# Session 20, first device call: look for the unwritten-output failures of launch-time K-major copies
# (sessions 18/19, under 15 pytest-xdist workers) with benchmarks/stress_launch_copies.py, then bisect
# (sync after the copy; every launcher cache dropped per launch).
# Run: CMD="bash benchmarks/session20_stress.sh" bash benchmarks/device_session.sh shell   (carry .whl)
S="$OUT/s20_stress"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv
for v in ${VARIANTS:-base sync_copy clear}; do
  timeout ${STRESS_TIMEOUT:-170} python3 benchmarks/stress_launch_copies.py --procs ${PROCS:-15} --seconds ${SECONDS_EACH:-75} \
    --load ${LOAD:-2} --variant $v --json "$S/stress.jsonl" > "$S/stress_$v.log" 2>&1
  echo "variant $v rc=$?"; tail -c 2500 "$S/stress_$v.log"; echo
done
tar czf "$OUT/s20_stress.tgz" -C "$OUT" s20_stress
