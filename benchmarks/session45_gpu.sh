#!/usr/bin/env bash
# Session 45, the lead's GPU calls: session 44's owed checks (benchmarks/session44_gpu1.sh: sweep 36, launch copies,
# attention forms, the early-TMA A/B) and session 45's (varlen row windows, fp8 P @ V, sweep 37).  STEPS picks, in order;
# each step's own script bounds its time.  Run (carry .whl):
#   CMD="STEPS='sweep36 copies attnforms attnk0 varlen' bash benchmarks/session45_gpu.sh" TAIL=160 bash benchmarks/device_session.sh shell
STEPS=${STEPS:-"varlen fp8attn sweep37"}
s44=""
for s in $STEPS; do case "$s" in sweep36|copies|attnforms|attnk0) s44="$s44 $s" ;; esac; done
[ -n "$s44" ] && STEPS="$s44" bash benchmarks/session44_gpu1.sh
[[ " $STEPS " == *" varlen "* ]] && TESTS_S=55 TIMING_S=45 bash benchmarks/session45_varlen.sh
[[ " $STEPS " == *" fp8attn "* ]] && TESTS_S=50 TIMING_S=50 bash benchmarks/session45_fp8attn.sh
[[ " $STEPS " == *" sweep37 "* ]] && SWEEP37_TIMEOUT=140 bash benchmarks/session45_sweep37.sh
true
