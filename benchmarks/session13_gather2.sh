# Session 13: the row gathers/scatter at 64 MB and 256 MB against tileiras 13.4 and torch (same process), after the
# resident-CTA hint and the shared slot coordinates; twice.  Run after stage_tc:
# CMD="bash benchmarks/session13_gather2.sh" bash benchmarks/device_session.sh shell (carry .whl)
for rep in 1 2; do
timeout 200 python3 benchmarks/memory_bound.py --only gather_rows_f32 gather_rows_bf16 scatter_rows_f32 --sizes small,default \
    --out $OUT/gather$rep 2>&1 | grep -E "^gather|^scatter"
done
