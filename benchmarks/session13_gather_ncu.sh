# Session 13: ncu on the 64 MB row gathers, tileorch's kernel beside tileiras's (same process, memory_bound.py, one
# iteration): duration, instructions, occupancy, stalls.  Run after stage_tc:
# CMD="bash benchmarks/session13_gather_ncu.sh" bash benchmarks/device_session.sh shell (carry .whl)
M="gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__block_size,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum"
for c in gather_rows_f32 gather_rows_bf16; do
  echo "== $c"
  timeout 200 ncu --clock-control none --kernel-name regex:gather --launch-skip 0 -c 8 --metrics $M \
      python3 benchmarks/memory_bound.py --only $c --sizes small --iters 1 --out /tmp/o1 2>&1 \
      | grep -E "gather_rows|  [a-z_]+__" | grep -v "^==PROF" | head -80
done
