"""SwiGLU MLP from one cuTile program (``tileorch.testing.user_programs3.mlp_swiglu``:
``y = (silu(x W1) * (x W3)) W2`` over hidden tiles, x's row tile loaded once): tileorch's chained
kernel (two first dots sharing x as one WGMMA, then the second dot on the gated product) against
the same program on tileorch's SIMT path (``schedule="simt"``: mma.sync, the fallback before the
chained kernel took three dots), tileiras (``cuda.tile.launch``) and torch (three cuBLAS GEMMs
and the elementwise gate, fp16), one timing method (:func:`tileorch.testing.timing.bench_ms`).

    python benchmarks/swiglu_mlp.py [--shapes 16384x128x4096x128,...] [--iters 30] [--out build/swiglu_mlp.json]

A shape is ``M x D x H x DO`` (D and DO are one tile each: at most 256).  Outputs are NaN-prefilled
and checked against fp32 torch first (relative Frobenius error); TFLOP/s = ``2 M H (2 D + DO)``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tileorch.testing.timing import bench_ms

SHAPES = "16384x128x4096x128,65536x64x2048x64,16384x64x8192x128"
TM, TH = 128, 64
"""The program's tiles: two 64-wide first dots (64 accumulator registers), P and a [128, DO <= 128]
output accumulator fit the chained kernel's register budget (128-wide hidden tiles do not)."""


def run_one(m: int, d: int, h: int, do: int, iters: int, dtype: str = "float16") -> dict:
    import torch
    import torch.nn.functional as F

    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.testing.user_programs3 import mlp_swiglu

    tdt = getattr(torch, dtype)
    g = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn((m, d), device="cuda", generator=g).to(tdt)
    w1 = (torch.randn((d, h), device="cuda", generator=g) / d ** 0.5).to(tdt)
    w3 = (torch.randn((d, h), device="cuda", generator=g) / d ** 0.5).to(tdt)
    w2 = (torch.randn((h, do), device="cuda", generator=g) / h ** 0.5).to(tdt)
    ref = (F.silu(x.float() @ w1.float()) * (x.float() @ w3.float())).to(tdt).float() @ w2.float()
    tm, th = TM, TH
    grid = ((m + tm - 1) // tm, 1, 1)
    flops = 2.0 * m * h * (2 * d + do)
    row: dict = {"m": m, "d": d, "h": h, "do": do, "dtype": dtype, "tiles": f"{tm}x{th}"}
    stream = torch.cuda.current_stream()

    def variant(name, launch, **kw):
        y = torch.full((m, do), float("nan"), device="cuda", dtype=tdt)
        args = (x, w1, w3, w2, y, tm, th, d, do)
        try:
            launch(stream, grid, mlp_swiglu, args, **kw)
            torch.cuda.synchronize()
            row[f"{name}_rel_err"] = float(((y.float() - ref).norm() / ref.norm()).item())
            row[f"{name}_ms"] = bench_ms(lambda: launch(stream, grid, mlp_swiglu, args, **kw), iters)
            if kw or name == "tileorch":
                prog = rc.compiled(mlp_swiglu, rc.describe_arguments(mlp_swiglu, args), "sm_90a",
                                   kw.get("schedule", "persistent")).program
                row[f"{name}_kind"] = prog.kind
        except Exception as exc:  # noqa: BLE001 - a variant that cannot run this case is a row entry
            row[f"{name}_error"] = f"{type(exc).__name__}: {exc}"[:300]

    variant("tileorch", tileorch.cutile.launch)
    variant("tileorch_simt", tileorch.cutile.launch, schedule="simt")
    try:
        import cuda.tile as ct

        variant("tileiras", ct.launch)
    except ImportError as exc:
        row["tileiras_error"] = f"cuda.tile not importable: {exc}"
    row["torch_ms"] = bench_ms(lambda: (F.silu(x @ w1) * (x @ w3)) @ w2, iters)
    for key in ("tileorch", "tileorch_simt", "tileiras", "torch"):
        if f"{key}_ms" in row:
            row[f"{key}_tflops"] = round(flops / row[f"{key}_ms"] / 1e9, 1)
    for key in ("tileorch_simt", "tileiras", "torch"):
        if f"{key}_ms" in row and "tileorch_ms" in row:
            row[f"vs_{key}"] = round(row[f"{key}_ms"] / row["tileorch_ms"], 3)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default=SHAPES)
    ap.add_argument("--dtype", default="float16", choices=("float16", "bfloat16"))
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--out", default="build/swiglu_mlp.json")
    opts = ap.parse_args(argv)
    rows = []
    for shape in opts.shapes.split(","):
        m, d, h, do = (int(v) for v in shape.split("x"))
        row = run_one(m, d, h, do, opts.iters, opts.dtype)
        rows.append(row)
        print(json.dumps(row), flush=True)
    Path(opts.out).parent.mkdir(parents=True, exist_ok=True)
    Path(opts.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
