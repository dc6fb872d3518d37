# Session 44, the lead's first GPU call: the helpers' correctness scripts and the early-TMA A/B in one call (< 560 s):
#   sweep 36's twin (140 s), the launch copies (120 s), the chained tier's new attention forms (110 s), the
#   TILEORCH_ATTN_EARLY_TMA A/B (130 s).  Run (carry .whl):
#   CMD="bash benchmarks/session44_gpu1.sh" TAIL=140 bash benchmarks/device_session.sh shell
SWEEP36_TIMEOUT=130 bash benchmarks/session44_sweep36.sh
TESTS_S=75 TWINS_S=30 bash benchmarks/session44_copies.sh
TESTS_S=50 TIMING_S=50 bash benchmarks/session44_attnforms.sh
AB_S=100 K0_S=20 bash benchmarks/session44_attnk0.sh
