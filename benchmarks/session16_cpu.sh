# Session 16 (s16-cpu) device call (carry .whl): LLVM's poison-reuse guard off for flag-free IR
# (tileorch.backend.ptx) changed the PTX of 22 of tools/ptx_identity.py's 579 programs (branchy /
# d64-bf16 attention epilogues, the stream-K / mods examples, 7 SIMT programs): their GPU tests, then
# the branchy attention's speed (12-03i record: d64 477.1/394.5, d128 679.8/561.4 TFLOP/s).
# Run: CMD="bash benchmarks/session16_cpu.sh" bash benchmarks/device_session.sh shell
S="$OUT/s16cpu"; mkdir -p "$S"
export TILEORCH_QUICK_GPU=1
timeout ${TEST_TIMEOUT:-420} python3 -m pytest -q -p no:cacheprovider -rfE -n 15 ${FILES:-tests/gpu/test_attention_programs.py \
  tests/gpu/test_user_sweep_gpu.py tests/gpu/test_memory_bound_gpu.py tests/gpu/test_conformance.py \
  tests/gpu/test_gemm.py tests/gpu/test_tier_column_reductions.py tests/gpu/test_user_sweep2_gpu.py tests/gpu/test_user_sweep7_gpu.py} 2>&1 | tee "$S/gpu_tests.log" | tail -n 30
timeout ${BENCH_TIMEOUT:-150} python3 benchmarks/attention.py --program branchy --dims 64,128 --seqs 4096 --causal both \
  --iters 10 --out "$S/attn_branchy" 2>&1 | tee "$S/attention_branchy.log" | tail -n 12
tar czf "$OUT/s16cpu.tgz" -C "$OUT" s16cpu
