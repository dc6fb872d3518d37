# Session 23's GPU work. Run from the repository root through device_session.sh (carry .whl):
#   PART=tests CMD="bash benchmarks/session23_gpu.sh" bash benchmarks/device_session.sh shell
#       the GPU files session 22 left unrun (attention set 4 incl. the chain-under-a-branch fix, user sweep 15,
#       sweep 6's unfinished ones), QUICK, 15 workers, one log; then the three memory_bound.py cases never run
#       (no tileiras: correctness + torch ratio + copy ratio)
#   PART=final (after stage_tc x2): this session's new GPU files (NEW_GPU_FILES) and benchmarks beside tileiras
S="$OUT/s23_gpu"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$S/device.txt"
PART=${PART:-tests}
case "$PART" in
  tests)
    export TILEORCH_QUICK_GPU=1 TILEORCH_GPU_FAILURE_LOG="$S/failures.log"
    FILES="tests/gpu/test_attention_programs4.py tests/gpu/test_user_sweep15_gpu.py tests/gpu/test_user_sweep6_gpu.py
      tests/gpu/test_memory_bound_gpu.py"
    for f in ${NEW_GPU_FILES:-}; do [ -e "${f%%::*}" ] && FILES="$FILES $f"; done
    timeout ${TEST_TIMEOUT:-330} python3 -m pytest -v --tb=short -p no:cacheprovider -rfE -n 15 $FILES \
      > "$S/gpu_tests.log" 2>&1
    echo "tests rc=$?"; grep -cE " PASSED" "$S/gpu_tests.log"; grep -E " FAILED| ERROR" "$S/gpu_tests.log" | head -40
    tail -n 2 "$S/gpu_tests.log"; [ -f "$S/failures.log" ] && head -c 4000 "$S/failures.log"
    timeout ${MEM_TIMEOUT:-120} python3 benchmarks/memory_bound.py --no-tileiras --only cross_entropy_bf16_v32000 \
      rope_bf16_llama adamw_f32_bf16_grads --sizes small,default,large --iters 20 --out "$S/mem_new" 2>&1 \
      | tee "$S/mem_new.log" | grep -v "^{" | tail -n 16
    tar czf "$OUT/s23_gpu_tests.tgz" -C "$OUT" s23_gpu ;;
  *) echo "PART must be tests"; exit 2 ;;
esac
