# Session 31, after the last changes: the chained MLP's GELU tanh with the default (the warp-vote branch now only for
# a scaled dot result: should be back at the branch-off speed, 171.9 TFLOP/s on the H100 of the earlier call) and
# the soft cap (should stay ~259), then the two-pass rows at 8192 / 16384 / 32000 columns with the default
# (auto + bulk fill) beside ROW_SMEM_CACHE=0.
# Run (carry .whl):  CMD="bash benchmarks/session31_gpu_calls.sh check" bash benchmarks/device_session.sh shell
S="$OUT/s31check"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
for b in 1 0; do TILEORCH_ATTN_TANH_BRANCH=$b timeout 60 python3 benchmarks/session31_mlp_tanh.py 2>&1 | tail -n 1; done
timeout 90 python3 benchmarks/session31_softcap.py --configs default --only softcap,no_cap --out "$S/softcap.json" \
  > "$S/softcap.log" 2>&1
python3 -c "import json,sys; [print(r['config'], r['program'], r.get('tflops')) for r in map(json.loads, open(sys.argv[1]))]" \
  "$S/softcap.json" || tail -n 5 "$S/softcap.log"
timeout 150 python3 benchmarks/memory_bound.py --out "$S/rows" --iters 20 --sizes default --no-tileiras \
  --only probe_log_softmax_bf16_v16384 probe_ce_fwd_bwd_bf16_v16384 probe_softmax_three_loops_bf16_v16384 \
  probe_ce_fwd_bwd_bf16_v8192 probe_softmax_three_loops_bf16_v8192 log_softmax_bf16_v32000 probe_ce_fwd_bwd_bf16_v32000 \
  probe_softmax_three_loops_bf16_v32000 --env default --env TILEORCH_ROW_SMEM_CACHE=0 > "$S/rows.log" 2>&1
echo "[rows] rc=$?"; python3 benchmarks/session27_rowred_summary.py "$S" rows 2>&1 | tail -n 20
timeout 120 python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 tests/gpu/test_user_sweep22_gpu.py \
  tests/gpu/test_user_sweep3_gpu.py tests/gpu/test_row_smem_cache_gpu.py 2>&1 | tail -n 4
