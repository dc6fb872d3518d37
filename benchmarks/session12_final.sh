# Session 12, last device call (after stage_tc x2; carry .whl): the chained/SwiGLU GPU tests (default and two
# consumer variants), the SwiGLU MLP timing (chained vs SIMT vs tileiras vs torch), the whole memory-bound set with
# tileiras at 64 MB .. 1 GB, and the row gathers under TILEORCH_GATHER_RUNS variants.
# Run: CMD="bash benchmarks/session12_final.sh" bash benchmarks/device_session.sh shell
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl 2>/dev/null
export TILEORCH_QUICK_GPU=1
timeout 150 python3 -m pytest -q -p no:cacheprovider -rfE -n 15 tests/gpu/test_user_sweep3_gpu.py tests/gpu/test_attention_programs.py 2>&1 | tee $OUT/gpu_tests.log | tail -4
for env in TILEORCH_ATTN_OVERLAP=0 TILEORCH_ATTN_PERSISTENT=0; do
  echo "== $env"; env $env timeout 45 python3 -m pytest -q -p no:cacheprovider -n 8 tests/gpu/test_user_sweep3_gpu.py -k "swiglu or three_gates" 2>&1 | tail -2
done
timeout 75 python3 benchmarks/swiglu_mlp.py --out $OUT/swiglu_mlp.json 2>&1 | tail -5
timeout 120 python3 benchmarks/memory_bound.py --sizes default,large --iters 20 --out $OUT/mem 2>&1 | tee $OUT/memory_bound.log | tail -8
