"""The unrolled dot programs of ``tileorch.testing.static_iter_programs`` on the GPU: the tensor-core
path (``tileas-reroll-unrolled-loops`` rolled the ``ct.static_iter`` copies into a loop; launch
``schedule="auto"``) against the SIMT path they took before (``schedule="simt"``: the straight-line
copies, dots on mma.sync), each checked against torch fp32 (outputs NaN-prefilled).  Prints the
median kernel time of each path (CUDA events, 20 timed launches after 3 warm-ups) and the speedup.
Exit status 1 on a wrong result or a program that did not take its tensor-core path.

Run: ``python benchmarks/static_iter_reroll.py``."""

from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import torch  # noqa: E402

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing import static_iter_programs as sp  # noqa: E402


def _time(grid, kernel, args, schedule):
    stream = torch.cuda.current_stream()
    for _ in range(3):
        tileorch.cutile.launch(stream, grid, kernel, args, schedule=schedule)
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(stream)
        tileorch.cutile.launch(stream, grid, kernel, args, schedule=schedule)
        end.record(stream)
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)


def _case(name, kernel, grid, args, out, ref, atol, rtol, kind):
    bad = 0
    row = [name]
    for schedule in ("auto", "simt"):
        out.fill_(float("nan"))
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args, schedule=schedule)
        torch.cuda.synchronize()
        ok = not torch.isnan(out.float()).any() and torch.allclose(out.float(), ref, atol=atol, rtol=rtol)
        path = rc.compiled(kernel, rc.describe_arguments(kernel, tuple(args)), "sm_90a",
                           "persistent" if schedule == "auto" else "simt").program.kind
        if schedule == "auto" and path != kind:
            ok = False
        bad += not ok
        us = _time(grid, kernel, args, schedule)
        row.append((schedule, path, us, "ok" if ok else "WRONG"))
    (_, p1, t1, s1), (_, p2, t2, s2) = row[1], row[2]
    print(f"{name}: {p1} {t1:.1f} us ({s1}) vs {p2} {t2:.1f} us ({s2}): {t2 / t1:.2f}x")
    return bad


def main() -> int:
    g = torch.Generator(device="cuda").manual_seed(15)

    def randn(*shape, dtype=torch.float16, scale=1.0):
        return (torch.randn(shape, device="cuda", generator=g) * scale).to(dtype)

    bad = 0
    m, n = 4096, 4096  # K = 4 tiles of 64
    a, b, bias = randn(m, 256), randn(256, n, scale=0.5), randn(n, dtype=torch.float32)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    ref = torch.relu(a.float() @ b.float() + bias[None, :])
    bad += _case("mm_static_iter_bias 4096x4096x256", sp.mm_static_iter_bias, (m // 128, n // 128, 1),
                 (a, b, bias, c, 4, 128, 128, 64), c, ref, 3e-2, 5e-3, "gemm")
    c2 = torch.empty(m, n, device="cuda", dtype=torch.float16)
    bad += _case("mm_persistent_static_k 4096x4096x256", sp.mm_persistent_static_k, (132, 1, 1),
                 (a, b, c2, 4, 128, 128, 64), c2, a.float() @ b.float(), 6e-2, 2e-3, "gemm")
    bh, sq, sk, d = 32, 4096, 256, 64  # 4 key tiles of 64
    q, k, v = randn(bh, sq, d), randn(bh, sk, d), randn(bh, sk, d)
    o = torch.empty(bh, sq, d, device="cuda", dtype=torch.float16)
    s = (q.float() @ k.float().transpose(-1, -2)) / math.sqrt(d)
    ref = torch.softmax(s, -1) @ v.float()
    bad += _case("attn_static_kv 32x4096 q, 256 keys, d64", sp.attn_static_kv, (sq // 128, bh, 1),
                 (q, k, v, o, 1.4426950408889634 / math.sqrt(d), 4, 128, 64, 64), o, ref, 3e-3, 1e-2, "chained")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
