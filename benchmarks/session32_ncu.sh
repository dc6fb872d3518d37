# Session 32: Nsight Compute on the cases still short of their targets (attention 1k, CE 4096, three-loop softmax
# 32000, CE fwd+bwd 32000) beside ones that meet them (attention 4k, log-softmax 32000); full report under $OUT,
# the key lines printed.
set -u
OUTD=${OUT:-/tmp}
CASES="attn:64:1024 attn:64:4096 attn:128:1024 attn:128:4096 mb:cross_entropy_bf16_v4096 mb:probe_ce_row_loss_bf16_v4096 mb:probe_softmax_three_loops_bf16_v32000 mb:probe_ce_fwd_bwd_bf16_v32000 mb:log_softmax_bf16_v32000"
timeout 400 ncu --clock-control none --profile-from-start off \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
  --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
  python3 benchmarks/session32_ncu.py $CASES > "$OUTD/ncu32.txt" 2>&1
echo "ncu rc=$?"
grep -E "^== |Duration|DRAM Throughput|Compute \(SM\) Throughput|Memory Throughput|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Block Limit|Dynamic Shared|Grid Size|Block Size|Waves Per SM|Warp Cycles Per Issued|Issue Slots Busy|No Eligible|L2 Hit|Executed Ipc A|error|Error" "$OUTD/ncu32.txt" | head -200
