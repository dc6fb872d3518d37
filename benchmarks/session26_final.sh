# Session 26's last device call, after every helper branch is merged (repository root, compiler installed by
# device_session.sh shell; results under $OUT/s26_final):
#   1. one pytest run (QUICK, 15 workers) of the GPU tests of this session's default-path changes: the cover programs
#      (int8 output of a float dot, LoRA at tn 256, two dots sharing a computed A, GQA loop inside a program, a
#      loopless attention; sweeps 4/20's moved cases), the epilogue dot's N loop (whole file), review 26's
#      conversions, the online softmax per-thread form and one-element loads (sweep 15's cross entropy, the memory-bound
#      set), the gamma A staged by default, attention with TILEORCH_ATTN_KV_AHEAD on by default (the attention set),
#      sweep 19's ftoi / transposes after the f64 NaN fix
#   2. attention d64 / d128, 1k / 4k, causal and not (the new default) vs SDPA
#   3. benchmarks/cover26.py: each newly covered program on its tier path vs its SIMT path vs torch
# Run (carry .whl):  CMD="bash benchmarks/session26_final.sh" bash benchmarks/device_session.sh shell
S="$OUT/s26_final"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
T="tests/gpu/test_cover26_gpu.py tests/gpu/test_epilogue_dot_gpu.py tests/gpu/test_memory_bound_gpu.py
  tests/gpu/test_attention_programs.py tests/gpu/test_user_sweep4_gpu.py::test_attn_short_no_loop
  tests/gpu/test_user_sweep19_gpu.py tests/gpu/test_register_a_gpu.py tests/gpu/test_computed_b_gpu.py"
[ -e tests/gpu/test_review26_gpu.py ] && T="$T tests/gpu/test_review26_gpu.py"
echo "=== tests ($(date -u +%T))"
timeout ${T1:-280} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 $T \
  "tests/gpu/test_user_sweep20_gpu.py::test_emulated_case_on_the_gpu[attn_gqa_group_loop_inside]" \
  "tests/gpu/test_user_sweep20_gpu.py::test_on_the_gpu_against_numpy[test_gqa_heads_looped_around_the_key_loop]" \
  "tests/gpu/test_user_sweep20_gpu.py::test_on_the_gpu_against_numpy[test_attention_over_one_key_tile_stores_probabilities]" \
  "tests/gpu/test_user_sweep15_gpu.py" > "$S/tests.log" 2>&1
echo "[tests] rc=$? passed=$(grep -cE " PASSED" "$S/tests.log") failed=$(grep -cE " FAILED" "$S/tests.log")"
grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -30; tail -n 1 "$S/tests.log"
echo "=== attention ($(date -u +%T))"
timeout ${T2:-110} python3 benchmarks/attention.py --dims 64,128 --seqs 1024,4096 --causal both --iters 10 \
  --out "$S/attention" 2>&1 | tail -n 9
echo "=== cover26 ($(date -u +%T))"
timeout ${T3:-70} python3 benchmarks/cover26.py --iters 10 --out "$S/cover26.json" > "$S/cover26.log" 2>&1
echo "rc=$?"; grep -vE "^\s*$|Warning|warn" "$S/cover26.log" | tail -n 14
[ -f "$S/failures.log" ] && head -c 3000 "$S/failures.log"
tar czf "$OUT/s26_final.tgz" -C "$OUT" s26_final
echo "=== done ($(date -u +%T))"
