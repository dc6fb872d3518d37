# Session 41, branch s41-gpufix: the 8 GPU failures of the earlier sweeps' twins under the launch-path check (14:22
# run of session41_sweep33.sh), then the twins that run did not reach.  Correctness on the GPU, no timings.
# 1. The 8 failed tests, --tb=long (fixed on this branch: launch_path.checked_launch compared the tier compile with a
#    test's ran="simt" (sweep 26 x2, 28, 31 strided view); sweep 26's resized MoE combine and sweep 6's strided batch
#    on transposed views run the SIMT path by design (the twins now expect it and its warning); sweep 31's
#    attn_bhsd_k_stored_transposed now has 152 keys (150 made K^T's rows 300 bytes: no tensor map, every launch SIMT);
#    sweep 29 has a GEMM case for gemm_a_3d_unit_head_dim_reshaped); and attnsweep36's two transposed-K/V cross
#    attentions (170 keys: a fake-driver launch falls back to SIMT, the twin would fail; now 176 keys).
# 2. The earlier twins from sweep 6 on in the 14:22 run's file order (sweeps 6, 7, 8, 9), test_attnsweep36_gpu.py and
#    test_attention_programs{2,3,4}.py, -n 8 -v (if the time limit stops it, the per-test lines say how far it got).
# Expect: every test passed.  Output: $OUT/s41gpufix/gpufix_logs.tgz (part1.log, part2.log: full pytest output).
# Run (carry .whl):  CMD="bash benchmarks/session41_gpufix.sh" bash benchmarks/device_session.sh shell
OUT=${OUT:-/tmp/out}; S="$OUT/s41gpufix"; mkdir -p "$S"; T=$(mktemp -d)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
start=$(date +%s)
EIGHT="tests/gpu/test_user_sweep26_gpu.py::test_bmm_b_broadcast_by_zero_batch_stride
tests/gpu/test_user_sweep26_gpu.py::test_on_the_gpu_against_numpy[test_bmm_b_broadcast_by_zero_batch_stride]
tests/gpu/test_user_sweep26_gpu.py::test_on_the_gpu_against_numpy[test_moe_combine_fewer_tokens_than_rows]
tests/gpu/test_user_sweep28_gpu.py::test_tier_case_on_the_gpu[bmm_batch_axis2_b_broadcast_stride0]
tests/gpu/test_user_sweep29_gpu.py::test_every_program_has_a_test
tests/gpu/test_user_sweep29_gpu.py::test_tier_case_on_the_gpu[gemm_a_3d_unit_head_dim_reshaped]
tests/gpu/test_user_sweep31_gpu.py::test_chained_program_on_the_gpu[attn_bhsd_k_stored_transposed]
tests/gpu/test_user_sweep31_gpu.py::test_on_the_gpu_against_numpy[test_gemm_batched_strided_batch_view]
tests/gpu/test_user_sweep31_gpu.py::test_k_stored_transposed_attention_at_size_against_torch
tests/gpu/test_user_sweep6_gpu.py::test_mm_batched_strided_batch_on_transposed_views
tests/gpu/test_user_sweep6_gpu.py::test_mm_batched_strided_batch_contiguous
tests/gpu/test_attnsweep36_gpu.py::test_program_on_the_gpu[s36_kt_array_cross_d96]
tests/gpu/test_attnsweep36_gpu.py::test_program_on_the_gpu[s36_v_transposed_cross]"
timeout ${PART1_TIMEOUT:-50} python3 -m pytest -v --tb=long -p no:cacheprovider -rfE -n 8 $EIGHT > "$T/part1.log" 2>&1
echo "[s41 gpufix] part 1 (the 8 failures + 5 neighbours) rc=$? $(( $(date +%s) - start )) s"
grep -E "^(FAILED|ERROR)|[0-9]+ (passed|failed)" "$T/part1.log" | tail -n 20 | sed 's/^/[s41 gpufix] /'
grep -E "^E  " "$T/part1.log" | head -n 20 | cut -c1-300 | sed 's/^/[s41 gpufix] part 1: /'
left=$(( ${TOTAL_S:-140} - ($(date +%s) - start) ))
REST="tests/gpu/test_user_sweep6_gpu.py tests/gpu/test_user_sweep7_gpu.py tests/gpu/test_user_sweep8_gpu.py \
  tests/gpu/test_user_sweep9_gpu.py tests/gpu/test_attnsweep36_gpu.py tests/gpu/test_attention_programs2.py \
  tests/gpu/test_attention_programs3.py tests/gpu/test_attention_programs4.py"
timeout $left python3 -m pytest -v --tb=long -p no:cacheprovider -rfE -n 8 $REST > "$T/part2.log" 2>&1
rc=$?
echo "[s41 gpufix] part 2 rc=$rc (124: stopped at the time limit, ${left} s) $(( $(date +%s) - start )) s"
echo "[s41 gpufix] part 2: $(grep -c ' PASSED ' "$T/part2.log") passed, $(grep -c ' FAILED ' "$T/part2.log") failed, \
$(grep -c ' SKIPPED ' "$T/part2.log") skipped, $(grep -c ' ERROR ' "$T/part2.log") errors so far"
for f in $REST; do echo "[s41 gpufix] part 2 $(basename $f): $(grep -c " PASSED $f" "$T/part2.log") passed, \
$(grep -c " FAILED $f" "$T/part2.log") failed"; done
grep -E "^(FAILED|ERROR)| FAILED | ERROR |[0-9]+ passed" "$T/part2.log" | sed 's/^\[gw[0-9]*\] \[ *[0-9]*%\] //' \
  | sort -u | head -n 40 | sed 's/^/[s41 gpufix] /'
grep -E "launch ran the (simt|gemm|chained) path" "$T/part2.log" | sort | uniq -c | head -n 20 \
  | sed 's/^/[s41 gpufix] launch path: /'
tar -C "$T" -czf "$S/gpufix_logs.tgz" part1.log part2.log
