# Session 12 device probe (s12-ragged): the 1000-wide fp16 row softmax whose padding's zero numerators sent
# div.rn to ptxas's slow path (FCHK) 8 times per warp-row; A/B of tileaa_to_simt/uniform_division.py
# (TILEORCH_UNIFORM_DIV, default on) at 64 MB and 1 GB, ncu instruction counts and time of both softmax kernels under
# both settings, then the GPU tests of what changed.
# Run: CMD="bash benchmarks/session12_ragged_probe.sh" bash benchmarks/device_session.sh shell  (carry .whl)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
timeout 240 python3 benchmarks/memory_bound.py --only softmax_f16_4096x1000 softmax_f16_rows_x1024 layernorm_f16 rmsnorm_f16 \
    --sizes small,large --no-tileiras --env default --env TILEORCH_UNIFORM_DIV=0 --out $OUT 2>&1 | tail -20
M="gpu__time_duration.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread"
for env in TILEORCH_UNIFORM_DIV=1 TILEORCH_UNIFORM_DIV=0; do
  for c in softmax_f16_4096x1000 softmax_f16_rows_x1024; do
    echo "== $c $env"
    env $env timeout 120 ncu --clock-control none --kernel-name regex:softmax_K --launch-skip 1 -c 1 --metrics $M \
        python3 benchmarks/memory_bound.py --only $c --sizes large --no-tileiras --iters 1 --out /tmp/o1 2>&1 \
        | grep -E "  [a-z_]+__" | head -12
  done
done
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_memory_bound_gpu.py -k "bit_for_bit or shared_reciprocal or softmax or rmsnorm or layernorm or argmax" 2>&1 | tail -3
