# Session 29 (s29-compile), issue 22: is 2 vector runs per thread (TILEORCH_ROW_RUNS=2) as fast as the default 4 for
# the single-pass row reductions with this session's defaults?  The kernel's size is the one compile-side lever left
# for these programs (benchmarks/results/compile_s29_2026-12-05.json: 2-core CPU at load 8-12, fresh `tileorch compile`, min of 5 each,
# R=4 and R=2 not interleaved; tileiras from another run of the same hour):
#   softmax_f16    R=4 0.490 s CPU (PTX 2502 lines, ptxas 0.088 s)  R=2 0.373 s (1355, 0.055)  tileiras 0.144
#   layernorm_bf16 R=4 0.505 s      (2201,       0.074)           R=2 0.398 s (1212, 0.046)  tileiras 0.193
# Session 22's H200 A/B (before predicated tails and rematerialized float loads) had R=2 equal on
# layernorm_f16 (4.06 / 4.06 TB/s) and rmsnorm_f16 (4.13 / 4.13), slower on softmax_f16_rows_x1024 (4.00 -> 3.71) and
# argmax_f32_x512 (3.95 -> 2.78), faster on softmax_f16_4096x1000 (1.74 -> 2.16).  Should show, per case, R=2 / R=4
# time (ratio < 1: R=2 faster) and both correct; a case where R=2 is within +-2% could take R=2 (a per-kind choice in
# transforms/tileas/simt_layouts.py, not made here).
# Run (carry .whl):  CMD="bash benchmarks/session29_compile.sh" bash benchmarks/device_session.sh shell
#   -> $OUT/s29compile.  Timeout 100 s.
S="$OUT/s29compile"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
# this session's new defaults (set on main by the lead; exported so that an older tree measures the same kernels)
export TILEORCH_PAIR_STAGES=1 TILEORCH_ATTN_CTAS_PER_SM=2 TILEORCH_SIMT_PREDICATED_TAILS=1 \
  TILEORCH_REMATERIALIZE_FLOAT_LOADS=1 TILEORCH_ATOMIC_FENCES=holders
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
CASES="softmax_f16_4096x1000 softmax_f16_rows_x1024 layernorm_f16 rmsnorm_f16 argmax_f32 argmax_f32_x512"
timeout 100 python3 benchmarks/memory_bound.py --no-tileiras --out "$S/bench" --iters 20 --sizes default \
  --only $CASES --env default --env TILEORCH_ROW_RUNS=2 > "$S/bench.log" 2>&1
echo "[memory_bound.py, default vs TILEORCH_ROW_RUNS=2] rc=$?"
python3 - "$S/bench/memory_bound.json" <<'PY'
import json, sys
rows = {}
for c in json.load(open(sys.argv[1]))["cases"]:
    case, _, setting = c["case"].partition("[")
    rows.setdefault(case, {})[setting.rstrip("]")] = c
for case, r in rows.items():
    a, b = r.get("default", {}), r.get("TILEORCH_ROW_RUNS=2", {})
    if "tileorch_ms" not in a or "tileorch_ms" not in b:
        print(f"{case:28s} no time: {a.get('tileorch_error', '')} {b.get('tileorch_error', '')}")
    else:
        print(f"{case:28s} R=4 {a['tileorch_ms']:.4f} ms ({a['tileorch_tbs']:.2f} TB/s)  R=2 {b['tileorch_ms']:.4f} ms "
              f"({b['tileorch_tbs']:.2f} TB/s)  R2/R4 time {b['tileorch_ms'] / a['tileorch_ms']:.3f}  "
              f"correct {a['correct']}/{b['correct']}")
PY
