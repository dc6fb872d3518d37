"""cuTile's f32 dot on the SIMT path: 3xTF32 on mma.sync (all of K staged, or K in chunks when the
three planes per operand do not fit the shared memory) against the scalar FMA loop, per tile shape.

Run on a GPU: ``python benchmarks/f32_dot_paths.py [--size 2048] [--out DIR]``; prints TFLOP/s and
the error against an fp64 product for each (tiles, path) and writes ``f32_dot_paths.json``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--tiles", default="128x128x32,128x128x64,64x64x32,64x64x64")
    ap.add_argument("--out", default="build/f32_dot_paths")
    ns = ap.parse_args(argv)
    os.environ["TILEORCH_CACHE"] = "0"  # each path compiled afresh (MAX_SCRATCH is not in the cache key)
    import torch

    import tileorch
    from tileorch.launchers import cutile as rc
    from tileorch.testing.dot_programs import gemm
    from tileorch.transforms.tileaa_to_simt import mma

    n = ns.size
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(n, n, device="cuda", generator=g)
    b = torch.randn(n, n, device="cuda", generator=g)
    ref = a.double() @ b.double()
    scale = a.double().abs() @ b.double().abs()
    rows = []
    default = mma.MAX_SCRATCH
    for spec in ns.tiles.split(","):
        tm, tn, tk = (int(x) for x in spec.split("x"))
        for path, limit in (("mma", default), ("scalar", 1)):
            mma.MAX_SCRATCH = limit
            rc.clear_caches()
            c = torch.full((n, n), float("nan"), device="cuda")
            grid = (n // tm, n // tn, 1)
            tileorch.cutile.launch(torch.cuda.current_stream(), grid, gemm, (a, b, c, tm, tn, tk))
            torch.cuda.synchronize()
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(ns.iters):
                tileorch.cutile.launch(torch.cuda.current_stream(), grid, gemm, (a, b, c, tm, tn, tk))
            stop.record()
            torch.cuda.synchronize()
            ms = start.elapsed_time(stop) / ns.iters
            err = float(((c.double() - ref).abs() / scale).max())
            row = {"tiles": spec, "path": path, "ms": ms, "tflops": round(2 * n ** 3 / ms / 1e9, 2),
                   "max_err_rel_to_abs_product": err}
            rows.append(row)
            print(json.dumps(row), flush=True)
    mma.MAX_SCRATCH = default
    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "f32_dot_paths.json").write_text(json.dumps({"size": n, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
