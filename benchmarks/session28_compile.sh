# Session 28 (s28-compile): TILEORCH_SIMT_PREDICATED_TAILS=1 (off by default), issue 22.  The SIMT path's per-element
# global loads and stores (the scalar path of a run that is not one aligned vector: misaligned rows, strided views,
# a run straddling a ragged row's end) become one predicated ld.global / st.global each instead of a branch per
# element.  CPU (2-core machine, fresh `tileorch compile --no-ptxas` under callgrind): softmax_f16 2.82e9 -> 2.58e9
# instructions (0.915x), layernorm_bf16 3.49e9 -> 2.87e9 (0.823x); PTX basic blocks 71 -> 19 (softmax), 136 -> 28
# (layernorm); same registers (56 / 96 / 48), no spills; ptxas time unchanged (0.093 -> 0.096 s, 0.073 -> 0.082 s).
# It changes the SASS, so it stays off until this A/B.  Should show:
#   part 1: the aligned rows (memory_bound.py cases, their fast vector paths unchanged in the PTX) equal within noise
#           (+-2%), all correct;
#   part 2: misaligned (offset 1 / 3) and strided (stride 2) rows, where every run goes element by element: the
#           predicated form at least as fast as the branched one (fewer branches per element), both correct;
#   part 3: the memory-bound GPU tests under the switch (ragged, misaligned, strided views, NaN-filled outputs whose
#           tails must stay NaN): all passed.
# Run (carry .whl):  CMD="bash benchmarks/session28_compile.sh" bash benchmarks/device_session.sh shell
#   -> $OUT/s28compile.  Timeouts: 2 x 22 + 2 x 18 + 35 s (115 s at most).
S="$OUT/s28compile"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
CASES="softmax_f16_4096x1000 softmax_f16_rows_x1024 layernorm_f16 rmsnorm_f16"
for v in 0 1; do
  TILEORCH_SIMT_PREDICATED_TAILS=$v timeout 22 python3 benchmarks/memory_bound.py --no-tileiras --out "$S/bench_pt$v" \
    --iters 20 --sizes default --only $CASES > "$S/bench_pt$v.log" 2>&1
  echo "[bench TILEORCH_SIMT_PREDICATED_TAILS=$v] rc=$?"
done
python3 - "$S" <<'PY'
import json, sys
from pathlib import Path
rows = {}
for v in ("0", "1"):
    for f in sorted(Path(sys.argv[1], f"bench_pt{v}").glob("*.json")):
        for c in json.loads(f.read_text()).get("cases", []):
            rows.setdefault(c["case"], {})[v] = c
for case, r in rows.items():
    if "0" in r and "1" in r:
        a, b = r["0"], r["1"]
        print(f"{case:40s} off {a['tileorch_ms']:.4f} ms  on {b['tileorch_ms']:.4f} ms  on/off "
              f"{b['tileorch_ms'] / a['tileorch_ms']:.3f}  correct {a['correct']}/{b['correct']}")
PY
for v in 0 1; do
  TILEORCH_SIMT_PREDICATED_TAILS=$v timeout 18 python3 - "$v" > "$S/tails_pt$v.log" 2>&1 <<'PY'
import sys, torch, tileorch.cutile
from tileorch.testing.memory_programs import layernorm, softmax
from tileorch.testing.timing import best_batch_ms
s = torch.cuda.current_stream()
m, n = 4096, 1000
for name, offset, step in (("softmax misaligned+1", 1, 1), ("softmax misaligned+3", 3, 1), ("softmax stride 2", 0, 2)):
    src = torch.randn(m * n * step + offset, device="cuda").half()
    x = src[offset:offset + m * n * step].view(m, n * step)[:, ::step]
    buf = torch.full((m * n + offset,), float("nan"), device="cuda", dtype=torch.float16)
    y = buf[offset:].view(m, n)
    launch = lambda: tileorch.cutile.launch(s, (m,), softmax, (x, y, 1024))
    launch(); torch.cuda.synchronize()
    ok = torch.allclose(y.float(), torch.softmax(x.float(), dim=1), atol=1e-3, rtol=1e-2)
    print(f"{name:24s} TILEORCH_SIMT_PREDICATED_TAILS={sys.argv[1]} {best_batch_ms(launch, 20):.4f} ms correct {ok}")
w, b = torch.randn(1024, device="cuda").half(), torch.randn(1024, device="cuda").half()
src = torch.randn(m * 1024 + 3, device="cuda").half()
x = src[3:].view(m, 1024)
y = torch.full((m * 1024 + 3,), float("nan"), device="cuda", dtype=torch.float16)[3:].view(m, 1024)
launch = lambda: tileorch.cutile.launch(s, (m,), layernorm, (x, w, b, y, 1024))
launch(); torch.cuda.synchronize()
ref = torch.nn.functional.layer_norm(x.float(), (1024,), w.float(), b.float(), eps=1e-5)
ok = torch.allclose(y.float(), ref, atol=2e-2, rtol=1e-2)
print(f"{'layernorm misaligned+3':24s} TILEORCH_SIMT_PREDICATED_TAILS={sys.argv[1]} {best_batch_ms(launch, 20):.4f} ms correct {ok}")
PY
  echo "[misaligned/strided rows, TILEORCH_SIMT_PREDICATED_TAILS=$v] rc=$?"; cat "$S/tails_pt$v.log" | tail -n 4
done
TILEORCH_SIMT_PREDICATED_TAILS=1 timeout 35 python3 -m pytest -q -p no:cacheprovider -rfE -n 4 \
  tests/gpu/test_memory_bound_gpu.py -k "softmax or layernorm or rmsnorm or axpby or row_sum or transpose" \
  > "$S/tests.log" 2>&1
echo "[memory-bound GPU tests, TILEORCH_SIMT_PREDICATED_TAILS=1] rc=$?"; tail -n 3 "$S/tests.log"
