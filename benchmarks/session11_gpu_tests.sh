# Run: CMD="bash benchmarks/session11_gpu_tests.sh" bash benchmarks/device_session.sh shell  (carry .whl)
# session 11: GPU tests of the merged work (sweep3, tier/chained changes, launch paths, located refusals), QUICK lists
export TILEORCH_QUICK_GPU=1
timeout 540 python3 -m pytest -q -p no:cacheprovider -rfEs -n 15 ${FILES:-tests/gpu/test_user_sweep3_gpu.py tests/gpu/test_bound_launches_gpu.py tests/gpu/test_tier_programs.py tests/gpu/test_attention_programs.py tests/gpu/test_gemm.py tests/gpu/test_cutile_gpu.py tests/gpu/test_user_sweep2_gpu.py tests/gpu/test_user_sweep_gpu.py tests/gpu/test_program_grid_gpu.py} 2>&1 | tee $OUT/gpu_tests.log | tail -40
