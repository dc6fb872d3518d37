# Session 38's owed GPU work in one device call (none of it ran: no device after 03:59 UTC), most decisive first,
# < 560 s in all:
#   [headdim] benchmarks/session38_headdim.sh: attention at the arrays' head dims (TILEORCH_ATTN_HEAD_DIM_WIDTH=1,
#             default 0 until this passes) vs SDPA, NaN-prefilled, and timed before/after at d80/d96;
#   [pdl]     benchmarks/session38_pdl.sh: dependent-launch chains checked against torch, then PDL off/on A/B
#             (TILEORCH_PDL, default 0) at d64/d128 1k/4k and a GEMM, the K0 probe's gap with PDL on;
#   [fp8]     benchmarks/session38_fp8.sh: sweep 29's fp8 twins with full failure text, the fp8 adder-width probe;
#   [sweep30] benchmarks/session38_sweep30.sh: sweep 30's GPU twins.
# Run (carry .whl):  CMD="bash benchmarks/session38_lead.sh" TAIL=150 bash benchmarks/device_session.sh shell
bash benchmarks/session38_headdim.sh
bash benchmarks/session38_pdl.sh
bash benchmarks/session38_fp8.sh
bash benchmarks/session38_sweep30.sh
