# Session 34 (s34-atomics), issue 21: combined atomics ON by default (TILEORCH_COMBINE_ATOMICS=auto; a combined
# kernel ptxas spills is compiled again without), CE fwd+bwd's gradient exp as ex2.approx(fma) on its proof
# (tileaa_to_simt/exp_below_lse.py, TILEORCH_EXP_BELOW_LSE) and no bar.sync after a tile store no read is ordered
# after by its token (tileaa_to_simt/store_barriers.py, TILEORCH_STORE_BARRIERS).  Steps, each under timeout, each a
# memory_bound.py process (the device copy's line first; torch beside every row; no tileiras):
#   ce    CE forward 4096 / 32000 columns: default (now combined, at most 4 rows a CTA: TILEORCH_CTA_PROGRAMS_MAX=4,
#         new) vs TILEORCH_COMBINE_ATOMICS=0 (session 33's default) vs TILEORCH_CTA_PROGRAMS_MAX=0 (combined, one
#         wave: session 33's auto, 16 rows a CTA at 4096); the probe of the same 4096 row storing its loss (no
#         atomics: the row's floor)
#   r32k  CE forward + backward over 32000 columns: default (both new rewrites) vs TILEORCH_EXP_BELOW_LSE=0,
#         TILEORCH_STORE_BARRIERS=always (main before this branch) vs each alone
#   ctl   programs whose PTX these changes leave alone or nearly (log-softmax 32000, softmax 4096x1000, layernorm,
#         RMSNorm: their tile stores lose the barrier only where no read is ordered after them)
#   gpu   GPU tests: combined atomics (the default now), the exp rewrite's bound on the device, sweep 10 / 15 / 21
#         programs with atomics or the CE gradient, the row cache / online-softmax exp tests
# Should show: ce: cross_entropy_bf16_v4096[default] >= 0.85 of copy (s33: 0.86 under auto, 0.75 off), [=0] ~0.75;
#   default (4 a CTA) above [CTA_PROGRAMS_MAX=0] (s33: 4 forced 0.90 vs one wave 0.86; if not, flip
#   launchers/cutile.py's CTA_PROGRAMS_MAX to 0);  r32k: default above [before] (s33: 0.77 of copy);  ctl: as in
#   s33 (+-0.02);  gpu: all passed.
# From main's tree after the merge. Run (carry .whl):  CMD="bash benchmarks/session34_atomics.sh" bash benchmarks/device_session.sh shell
S="$OUT/s34atomics"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
timeout ${CE_TIMEOUT:-85} python3 benchmarks/memory_bound.py --out "$S/bench_ce" --iters 20 --sizes default \
  --no-tileiras --only cross_entropy_bf16_v4096 cross_entropy_bf16_v32000 probe_ce_row_loss_bf16_v4096 --env default \
  --env TILEORCH_COMBINE_ATOMICS=0 --env TILEORCH_CTA_PROGRAMS_MAX=0 > "$S/bench_ce.log" 2>&1
echo "[ce] rc=$?"; grep -E "^device copy|^(cross|probe)" "$S/bench_ce.log"
timeout ${R32K_TIMEOUT:-45} python3 benchmarks/memory_bound.py --out "$S/bench_r32k" --iters 20 --sizes default \
  --no-tileiras --only probe_ce_fwd_bwd_bf16_v32000 --env default \
  --env TILEORCH_EXP_BELOW_LSE=0,TILEORCH_STORE_BARRIERS=always --env TILEORCH_EXP_BELOW_LSE=0 \
  --env TILEORCH_STORE_BARRIERS=always > "$S/bench_r32k.log" 2>&1
echo "[r32k] rc=$?"; grep -E "^device copy|^probe" "$S/bench_r32k.log"
timeout ${CTL_TIMEOUT:-40} python3 benchmarks/memory_bound.py --out "$S/bench_ctl" --iters 20 --sizes default \
  --no-tileiras --only log_softmax_bf16_v32000 softmax_f16_4096x1000 layernorm_f16 rmsnorm_f16 > "$S/bench_ctl.log" 2>&1
echo "[ctl] rc=$?"; grep -E "^device copy|^(log|soft|layer|rms)" "$S/bench_ctl.log"
timeout ${GPU_TIMEOUT:-60} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 4 \
  tests/gpu/test_combined_atomics_gpu.py tests/gpu/test_exp_below_lse_gpu.py tests/gpu/test_user_sweep15_gpu.py \
  tests/gpu/test_user_sweep10_gpu.py tests/gpu/test_user_sweep21_gpu.py tests/gpu/test_row_smem_cache_gpu.py \
  tests/gpu/test_online_softmax_exp_gpu.py \
  -k "combined or exp_below or cross_entropy or atomic or histogram or dgamma or bincount or row_smem or online" \
  > "$S/gpu_tests.log" 2>&1
echo "[gpu] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/gpu_tests.log" | sort -u | head -20; tail -n 1 "$S/gpu_tests.log"
tar czf "$OUT/s34atomics.tgz" -C "$OUT" s34atomics
