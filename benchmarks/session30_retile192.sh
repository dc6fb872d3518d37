# Session 30 s30-retile192 on the GPU (one device call, < 90 s; repository root, compiler installed; results under
# $OUT): cuTile GEMM programs retiled by the launcher to 128 x 192 tiles at wave-quantised shapes.
#  1. tests/gpu/test_retile192_gpu.py (torch references, NaN-prefilled; the launch remark names 192 on 132 SMs);
#  2. three cuTile GEMM programs at 1344x6272x2048 and 2432x1792x1024 through tileorch.cutile.launch with the
#     192-wide retile on (the default) and off (retile_config's tile_192=False), torch.matmul beside (same process).
S="$OUT/s30_retile192"; mkdir -p "$S"
timeout 45 python3 -m pytest -q -p no:cacheprovider -rfE tests/gpu/test_retile192_gpu.py > "$S/gpu_tests.log" 2>&1
echo "tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 10
timeout 40 python3 - "$S" <<'PY' 2>&1 | tee "$S/bench.log"
import functools, json, sys
import torch
import tileorch.cutile
from tileorch.launchers import cutile as rc
from tileorch.testing.user_programs3 import PROGRAMS

real = rc.retile_config
def timed(fn, iters=20):
    fn(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(True), torch.cuda.Event(True)
    s.record()
    for _ in range(iters):
        fn()
    e.record(); torch.cuda.synchronize()
    return s.elapsed_time(e) / iters
rows = []
for (m, n, k) in [(1344, 6272, 2048), (2432, 1792, 1024)]:
    a = torch.randn(m, k, device="cuda").half(); b = torch.randn(k, n, device="cuda").half() * 0.1
    w = b.T.contiguous(); r = torch.randn(m, device="cuda"); cb = torch.randn(n, device="cuda")
    progs = {"mm_tiled_view": ([a, b, torch.empty(m, n, device="cuda").half()], 64),
             "mm_load_order_bt": ([a, w, torch.empty(m, n, device="cuda").half()], 128),
             "mm_rowscale_colbias": ([a, b, r, cb, torch.empty(m, n, device="cuda")], 128)}
    t_torch = timed(lambda: torch.matmul(a, b))
    for name, (args, tn) in progs.items():
        p = PROGRAMS[name]
        grid = (-(-m // 128), -(-n // tn), 1)
        row = {"program": name, "shape": f"{m}x{n}x{k}", "torch_ms": round(t_torch, 4)}
        for label, t192 in (("on", True), ("off", False)):
            rc.retile_config = functools.partial(real, tile_192=t192) if not t192 else real
            rc.clear_caches()
            f = lambda: tileorch.cutile.launch(torch.cuda.current_stream(), grid, p.kernel, tuple(args) + tuple(p.spec[len(args):]))
            row[f"ms_192_{label}"] = round(timed(f), 4)
            row[f"remark_{label}"] = "; ".join(x for e in rc._programs.values() for x in e.launch_remarks.values())
        rc.retile_config = real
        rows.append(row)
        print(f"{name:22s} {row['shape']:16s} 192 on {row['ms_192_on']:.4f} ms  off {row['ms_192_off']:.4f} ms  torch {t_torch:.4f} ms")
json.dump(rows, open(sys.argv[1] + "/retile192_ab.json", "w"), indent=1)
PY
