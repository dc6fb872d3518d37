# Session 20 (issue 21): the last memory-bound gap, gather_rows_f32 at 64 MB (0.97-0.98x tileiras in sessions 13-19),
# A/B of the SIMT layout's switches in ONE process beside tileiras 13.4 and torch, 64 MB twice and 256 MB once
# (the gap is ~0.6 us of 18 us: run-to-run noise is of that order).  Settings (each row named case[setting]):
#   default                                               256 threads, 4 rows x 4 runs of 16 B a thread, .minnctapersm 6
#   TILEORCH_SIMT_VECTOR_BYTES=4                          tileiras's layout for f32: no vector access left, so the
#                                                         kernel's 4 warps, 4-byte accesses, 32 a thread (ptxas spills
#                                                         under the hint: dropped, 64 registers; tileiras 48); bf16:
#                                                         2 elements per access, 512 threads
#   TILEORCH_SIMT_VECTOR_BYTES=8                          f32: 512 threads of 4 8-byte loads (4 rows), the hint asks
#                                                         3 CTAs: 40 registers (32 without it)
#   TILEORCH_SIMT_VECTOR_BYTES=8,TILEORCH_GATHER_WARPS=64 the same at 4 CTAs of 512 (64 warps per SM, 32 registers,
#                                                         no spill; 2047 CTAs = 3.9 waves of 528)
#   TILEORCH_SIMT_VECTOR_BYTES=4,TILEORCH_GATHER_RUNS=32,TILEORCH_GATHER_WARPS=40,TILEORCH_SIMT_STORE_CHUNK=8
#                                                         (session 21) tileiras's structure: 128 threads of 32 4-byte
#                                                         accesses, 10 CTAs per SM asked, each group of 8 runs stored
#                                                         right after its loads (tileaa_to_simt/store_chunks.py): 40
#                                                         registers under the hint, no spill (without the chunks: the
#                                                         hint dropped, 64 registers)
#   TILEORCH_SIMT_STORE_CHUNK=1                           (session 21) the default CTA, each 16-byte run stored right
#                                                         after its loads (34 registers instead of 40)
# (TILEORCH_GATHER_RUNS=8 and TILEORCH_GATHER_WARPS=0 were measured before: 1.00x of the default, session 15 / 13.)
# Then the int64-id embedding gather of sweep 10 (issue 21 item 2), default vs TILEORCH_GATHER_RUNS=2.
# About 3.5 minutes (two settings added in session 21).  Run after stage_tc (x2), carry .whl:
#   CMD="bash benchmarks/session20_mem_probe.sh" bash benchmarks/device_session.sh shell
S="$OUT/s20_mem"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
for rep in 1 2; do  # the second repetition at 64 MB only (the gap's size)
  timeout ${MEM_TIMEOUT:-120} python3 benchmarks/memory_bound.py --only gather_rows_f32 gather_rows_bf16 \
    --sizes $([ $rep = 1 ] && echo small,default || echo small) --iters 20 --env default \
    --env TILEORCH_SIMT_VECTOR_BYTES=4 --env TILEORCH_SIMT_VECTOR_BYTES=8 \
    --env TILEORCH_SIMT_VECTOR_BYTES=8,TILEORCH_GATHER_WARPS=64 \
    --env TILEORCH_SIMT_VECTOR_BYTES=4,TILEORCH_GATHER_RUNS=32,TILEORCH_GATHER_WARPS=40,TILEORCH_SIMT_STORE_CHUNK=8 \
    --env TILEORCH_SIMT_STORE_CHUNK=1 \
    --out "$S/rep$rep" 2>&1 | tee "$S/memory_bound_rep$rep.log" | grep -E "^gather|^summary|error|Error" | head -30
done
# the int64-id embedding gather: default (53 registers, the hint dropped) vs 2 runs a thread (35, under the hint)
timeout ${EMB_TIMEOUT:-60} python3 benchmarks/embedding_gather_probe.py 2>&1 | tee "$S/embedding_gather.log"
tar czf "$OUT/s20_mem.tgz" -C "$OUT" s20_mem
