# Session 25's first device call: the GPU tests nothing has run yet, newest first, two pytest runs (QUICK, 15 workers,
# torch fp32 / numpy references, NaN-prefilled outputs; failures appended to $OUT/s25_gpu/failures.log as they happen).
#   1. sessions 24-25 (TIMEOUT1): user sweeps 18-21, the epilogue dot (K-major E, LoRA), gathered A (MoE), the
#      review's odd-width C slices and register A, the memory-bound set (exchange-free SIMT reductions), sweep 15
#   2. session 23's unrun set (TIMEOUT2; benchmarks/session23_gpu.sh PART=mid's files): sweeps 14/16/17, operand
#      views, attention set 4 (dQ, dK/dV), register A, computed B, 256-row tiles, the tier programs, cuTile
# Run (carry .whl):  CMD="bash benchmarks/session25_gpu.sh" bash benchmarks/device_session.sh shell
S="$OUT/s25_gpu"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
run() {  # $1 label, $2 timeout, rest: files
  local label=$1 limit=$2; shift 2
  timeout "$limit" python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 "$@" > "$S/$label.log" 2>&1
  echo "[$label] rc=$? passed=$(grep -cE " PASSED" "$S/$label.log") failed=$(grep -cE " FAILED" "$S/$label.log")"
  grep -E "(FAILED|ERROR) tests" "$S/$label.log" | sort -u | head -30
  tail -n 1 "$S/$label.log"
}
NEW="tests/gpu/test_user_sweep20_gpu.py tests/gpu/test_user_sweep21_gpu.py tests/gpu/test_epilogue_dot_gpu.py
  tests/gpu/test_gathered_dot_gpu.py tests/gpu/test_user_sweep18_gpu.py tests/gpu/test_user_sweep19_gpu.py
  tests/gpu/test_memory_bound_gpu.py tests/gpu/test_user_sweep15_gpu.py"
for f in tests/gpu/test_review25*.py; do [ -e "$f" ] && NEW="$NEW $f"; done
run new "${TIMEOUT1:-300}" $NEW
OLD="tests/gpu/test_user_sweep16_gpu.py tests/gpu/test_user_sweep17_gpu.py tests/gpu/test_user_sweep14_gpu.py
  tests/gpu/test_operand_views_gpu.py tests/gpu/test_attention_programs4.py tests/gpu/test_register_a_gpu.py
  tests/gpu/test_computed_b_gpu.py tests/gpu/test_attention_programs.py::test_attention_256_row_tiles
  tests/gpu/test_tier_programs.py tests/gpu/test_cutile_gpu.py"
run old "${TIMEOUT2:-230}" $OLD
[ -f "$S/failures.log" ] && head -c 5000 "$S/failures.log"
tar czf "$OUT/s25_gpu.tgz" -C "$OUT" s25_gpu
