"""Persistent vs Stream-K for tileorch's default GEMM configuration on given shapes (GPU), to
check the ``choose_schedule`` rule: each shape's inputs are fp16 randn (A [M,K], B [K,N]
row-major), both schedules are checked against torch fp32 and timed with
:func:`benchmarks.gemm.bench_ms` next to ``torch.matmul``.

    python benchmarks/schedule_probe.py 1344x6272x2048 7744x1600x2048 ...
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main(argv: list[str]) -> int:
    import torch

    import tileorch.launchers.gemm as api
    from gemm import bench_ms

    for spec in argv:
        m, n, k = (int(x) for x in spec.split("x"))
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        ref = a.float() @ b.float()
        base = api.default_config(m, n, k, "f16", "f16", "n", "auto", 132)
        line = [f"{spec:18s} auto={base.schedule:10s}"]
        t_cublas = bench_ms(lambda: torch.matmul(a, b), 30)
        for schedule in ("persistent", "streamk"):
            cfg = replace(base, schedule=schedule).check()
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
            api.gemm(a, b, c, config=cfg)
            torch.cuda.synchronize()
            err = float((c.float() - ref).norm() / ref.norm())
            t = bench_ms(lambda: api.gemm(a, b, c, config=cfg), 30)
            line.append(f"{schedule} {t_cublas / t:.3f}x cuBLAS (err {err:.1e})")
        print("  ".join(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
