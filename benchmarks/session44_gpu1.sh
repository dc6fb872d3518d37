# Session 44, the lead's GPU call (device time was short: correctness first, then the early-TMA A/B if time is left):
#   sweep 36's twin (120 s), the launch copies (tests only, 75 s), the chained tier's new attention forms (tests 50 s,
#   timing 40 s), the TILEORCH_ATTN_EARLY_TMA A/B (90 s); a step at 1 s is skipped by its timeout; STEPS=... picks.  Run (carry .whl):
#   CMD="bash benchmarks/session44_gpu1.sh" TAIL=140 bash benchmarks/device_session.sh shell
STEPS=${STEPS:-"sweep36 copies attnforms attnk0"}
[[ " $STEPS " == *" sweep36 "* ]] && SWEEP36_TIMEOUT=120 bash benchmarks/session44_sweep36.sh
[[ " $STEPS " == *" copies "* ]] && TESTS_S=75 TWINS_S=1 bash benchmarks/session44_copies.sh
[[ " $STEPS " == *" attnforms "* ]] && TESTS_S=50 TIMING_S=40 bash benchmarks/session44_attnforms.sh
[[ " $STEPS " == *" attnk0 "* ]] && AB_S=90 K0_S=1 bash benchmarks/session44_attnk0.sh
true
