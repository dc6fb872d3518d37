# Session 11 device probe (results/probe_2026-12-03e.log): ncu of the ragged (1000-wide) vs 1024-wide softmax at 1 GB,
# RAGGED_ROWS A/B, the exp2 FMA share at d64, PEELED_MASKS/EARLY_Q at d128, bound-launch GPU tests, launch overhead.
# Run: CMD="bash benchmarks/session11_probe.sh" bash benchmarks/device_session.sh shell  (carry .whl)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_drain_per_warp_active.pct,launch__grid_size,launch__block_size,launch__occupancy_limit_blocks,sm__maximum_warps_per_active_cycle_pct"
for c in softmax_f16_4096x1000 softmax_f16_rows_x1024; do
  timeout 120 ncu --clock-control none --kernel-name regex:softmax_K --launch-skip 1 -c 1 --metrics $M python3 benchmarks/memory_bound.py --only $c --sizes large --no-tileiras --iters 1 --out /tmp/o1 2>&1 | grep -E "softmax_K|  [a-z_]+__|device copy" | head -24
done
timeout 150 python3 benchmarks/memory_bound.py --only softmax_f16_4096x1000 softmax_f16_rows_x1024 --sizes small,large --no-tileiras --env default --env TILEORCH_RAGGED_ROWS=0 --out $OUT 2>&1 | tail -14
timeout 240 python3 benchmarks/attention_variants.py --dims 64 --seqs 1024,4096,16384 --causal both --iters 20 --variants 'default:;fma8:TILEORCH_ATTN_EXP2_FMA=8;fma4:TILEORCH_ATTN_EXP2_FMA=4' --out $OUT 2>&1 | tail -16
timeout 150 python3 benchmarks/attention_variants.py --dims 128 --seqs 1024,4096 --causal no --iters 20 --variants 'default:;peeled:TILEORCH_ATTN_PEELED_MASKS=1;earlyq:TILEORCH_ATTN_EARLY_Q=1;both:TILEORCH_ATTN_PEELED_MASKS=1,TILEORCH_ATTN_EARLY_Q=1' --out $OUT/d128 2>&1 | tail -6
timeout 100 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_bound_launches_gpu.py 2>&1 | tail -3
timeout 120 python3 benchmarks/launch_overhead.py --mode gpu --calls 2000 --out $OUT 2>&1 | tail -30
