# Session 30 (lead): the GEMM shape suite on the current main, every schedule x tile width the auto choice could
# pick (128 x 256 / 192 / 128; persistent, Stream-K, data-parallel) beside cuBLAS in one process, so the auto rule
# (launchers/gemm.py default_config) can be refitted on H200 data (the last suite run: H100, 2026-11-25, auto 0.903).
# Run (carry .whl):  CMD="bash benchmarks/session30_gemm_suite.sh" bash benchmarks/device_session.sh shell
S="$OUT/s30gemm"; mkdir -p "$S"
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
V=${VARIANTS:-persistent,streamk,dp,persistent_n192,streamk_n192,persistent_n128,streamk_n128}
timeout ${GEMM_TIMEOUT:-400} python3 benchmarks/gemm.py build --variants "$V" 2>&1 | tail -n 3
timeout 120 python3 benchmarks/gemm.py check --variants persistent_n192,streamk_n192,dp_n192 2>&1 | grep -v "^ok" | tail -n 8
timeout ${GEMM_TIMEOUT:-400} python3 benchmarks/gemm.py run --variants "$V" --iters 30 --out "$S" 2>&1 \
  | grep -v '^ \|^{\|^}' | tail -n 30
