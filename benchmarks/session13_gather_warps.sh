# Session 13: the loop-free gathers with ptxas asked for 48 resident warps per SM (gather_occupancy.py, the default)
# against no hint (TILEORCH_GATHER_WARPS=0), tileiras 13.4 and torch in the same process, 64 MB and 256 MB, twice.
# Run after stage_tc: CMD="bash benchmarks/session13_gather_warps.sh" bash benchmarks/device_session.sh shell (carry .whl)
for rep in 1 2; do
timeout 200 python3 benchmarks/memory_bound.py --only gather_rows_f32 gather_rows_bf16 scatter_rows_f32 --sizes small,default \
    --env default --env TILEORCH_GATHER_WARPS=0 --out $OUT/gather$rep 2>&1 | grep -E "^gather|^scatter"
done
