# Session 35 (lead): tileorch.gemm (auto) on the 20-shape suite beside torch.matmul in one process, B as an
# nn.Linear weight and B row-major (the last record: H200 2026-12-03c, 0.877x / 0.934x).
# Run (carry .whl):  CMD="bash benchmarks/session35_gemm.sh" bash benchmarks/device_session.sh shell
S="$OUT/s35gemm"; mkdir -p "$S"
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
timeout ${GEMM_TIMEOUT:-300} python3 benchmarks/gemm.py run --variants= --row-major-b --iters 30 --out "$S" 2>&1 \
  | grep -v '^ \|^{\|^}' | tail -n 30
