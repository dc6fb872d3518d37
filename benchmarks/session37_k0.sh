# Session 37 (issue 20, d64 1k: K0): what the chained kernel's per-launch cost is made of. session36_rounds fitted
# time = K0 + rounds x R on an H100: tileorch K0 12.6 us, R 9.82 us; cuDNN 6.9 + 9.69 us. One device call, < 150 s.
#   [k0] benchmarks/session37_k0.py (a profiling harness: the kernel's PTX instrumented before ptxas in that process
#        only, compile cache off): %globaltimer / %clock64 per CTA and warp group at entry, after the prologue's
#        bar.sync, after setmaxnreg, the producer's first Q / K TMA, the consumers' first Q wait, first K/V wait,
#        first dot retired, first O store, last Q wait, last O store, exit; the last 4 of 8 back-to-back launches
#        kept (the gap exit -> next launch's entry), 3 series; d64 128x128 seq 1k at bh 132 (8 whole rounds) and
#        bh 256 (issue 20's shape); the plain and the instrumented kernel event-timed beside (the probe's cost).
# What it should show: event-timed plain ~91 us (bh 132) / ~171 us (bh 256); "summary" splits each launch into the
# in-kernel span (max exit - min entry) and the rest (event-timed - span: launch/drain outside the kernel); the
# "gap" lines the idle time between back-to-back launches; per event the median/min/max over CTAs from the launch's
# first entry: entry skew (CTA launch spread), how long until the first TMA / first dot (prologue + first-load
# latency), and the tail (exit spread after the last O store).  Instrumented within ~3% of plain.
# Run (carry .whl):  CMD="bash benchmarks/session37_k0.sh" bash benchmarks/device_session.sh shell
S="$OUT/s37k0"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s37k0}
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
timeout ${K0:-120} python3 benchmarks/session37_k0.py --d 64 --seq 1024 --bh 132,256 --launches 8 --reps 3 \
  > "$S/k0.log" 2>&1
echo "[k0] rc=$?"; grep "^\[k0\]" "$S/k0.log" || tail -n 20 "$S/k0.log"
