# Session 41, user sweep 33 and the launch-path check (branch s41-sweep33): correctness on the GPU, no timings.
# 1. tests/gpu/test_user_sweep33_gpu.py: every program of tileorch.testing.user_programs33 against its numpy
#    reference on ragged shapes (NaN-filled outputs and tails; 11 chained attention programs, 13 tier GEMMs, 20 SIMT
#    programs) and two attention programs at size against torch.
# 2. Every earlier sweep's GPU twin (tests/gpu/test_user_sweep*_gpu.py, sweeps 1-32, test_attnsweep36_gpu.py and the
#    attention sweeps test_attention_programs{2,3,4}.py) with the NEW shared check (tileorch.testing.launch_path,
#    in sweep_harness.gpu_run and test_user_sweep_gpu.run / check_path): a program whose table names the GEMM or
#    chained tier fails when its LAUNCH ran the SIMT path (before, only the compile's path was checked).
#    Run with -v so that, if the time limit stops it, the per-test lines already written say what passed / failed.
# Expect: every test passed; part 2 may not finish in its share of the time (it prints how far it got).
# Output: $OUT/s41sweep33/sweep33_gpu.log and $OUT/s41sweep33/earlier_sweeps_gpu.log (full pytest output, failures
# in full), both in one s41sweep33_logs.tgz.
# Run (carry .whl):  CMD="bash benchmarks/session41_sweep33.sh" bash benchmarks/device_session.sh shell
OUT=${OUT:-/tmp/out}; S="$OUT/s41sweep33"; mkdir -p "$S"; T=$(mktemp -d)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
start=$(date +%s)
timeout ${SWEEP33_TIMEOUT:-45} python3 -m pytest -q --tb=long -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_user_sweep33_gpu.py > "$T/sweep33_gpu.log" 2>&1
echo "[s41 sweep33] sweep 33 twin rc=$? $(( $(date +%s) - start )) s"
grep -E "^(FAILED|ERROR)|passed|failed" "$T/sweep33_gpu.log" | tail -n 30 | sed 's/^/[s41 sweep33] /'
left=$(( ${TOTAL_S:-145} - ($(date +%s) - start) ))
EARLIER=$(ls tests/gpu/test_user_sweep*_gpu.py | grep -v sweep33; echo tests/gpu/test_attnsweep36_gpu.py \
  tests/gpu/test_attention_programs2.py tests/gpu/test_attention_programs3.py tests/gpu/test_attention_programs4.py)
timeout $left python3 -m pytest -v --tb=long -p no:cacheprovider -rfE -n 8 $EARLIER > "$T/earlier_sweeps_gpu.log" 2>&1
rc=$?
echo "[s41 sweep33] earlier sweeps rc=$rc (124: stopped at the time limit, ${left} s) $(( $(date +%s) - start )) s"
echo "[s41 sweep33] earlier sweeps: $(grep -c ' PASSED ' "$T/earlier_sweeps_gpu.log") passed, $(grep -c ' FAILED ' \
  "$T/earlier_sweeps_gpu.log") failed, $(grep -c ' SKIPPED ' "$T/earlier_sweeps_gpu.log") skipped so far"
grep -E "^(FAILED|ERROR)| FAILED | ERROR |[0-9]+ passed" "$T/earlier_sweeps_gpu.log" | sed 's/^\[gw[0-9]*\] \[ *[0-9]*%\] //' \
  | sort -u | head -n 60 | sed 's/^/[s41 sweep33] /'
grep -E "launch ran the (simt|gemm|chained) path" "$T/earlier_sweeps_gpu.log" | sort | uniq -c | head -n 20 \
  | sed 's/^/[s41 sweep33] launch path: /'
tar -C "$T" -czf "$S/s41sweep33_logs.tgz" sweep33_gpu.log earlier_sweeps_gpu.log
