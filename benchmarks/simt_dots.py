"""Dots on the SIMT path: ``mma.sync`` (transforms/tileaa_to_simt/mma.py) against the scalar FMA loop
it replaced (``TILEORCH_SIMT_MMA=0``) and against the tensor-core tier where the tier takes the
program, on the GPU, one timing method (:func:`tileorch.testing.timing.bench_ms`).

    python benchmarks/simt_dots.py [--size 2048x2048x2048] [--iters 20] [--out build/simt_dots.json]

Programs: zoo programs forced onto the SIMT path (``schedule="simt"``) and the tier's refusals
(``gemm_store_transposed`` into a column-major C).  Each variant's output is NaN-prefilled and
checked against torch fp32 first (relative max error in the record); prints TFLOP/s per variant,
the speed-up of mma.sync over the scalar loop, and the compile seconds of each SIMT variant.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from tileorch.testing.timing import bench_ms

PROGRAMS = ["gemm_f16_tile64x64", "gemm_f16", "linear_tf32", "linear_i8_i32", "gemm_colsum_f16"]


def _variant(name, m, n, k, schedule, mma: bool, iters: int) -> dict:
    import torch

    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.testing.dot_programs import PROGRAMS as ZOO
    from tileorch.testing.dot_programs import build, unwritten

    os.environ["TILEORCH_SIMT_MMA"] = "1" if mma else "0"
    rc.clear_caches()  # the in-process caches do not key on the switch (the disk cache does)
    stream = torch.cuda.current_stream()
    kernel, args, grid, out, ref, _ = build(name, m, n, k, seed=1)
    start = time.perf_counter()
    tileorch.cutile.launch(stream, grid, kernel, args, schedule=schedule, tiles="program")
    torch.cuda.synchronize()
    row = {"first_launch_s": round(time.perf_counter() - start, 2)}
    outs, refs = (out, ref) if isinstance(out, tuple) else ((out,), (ref,))
    row["rel_err"] = max(float("nan") if unwritten(o).any() else
                         float(((o.float() - r).abs().max() / r.abs().max().clamp_min(1e-6)).item())
                         for o, r in zip(outs, refs))
    program = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", schedule).program
    row["kind"] = program.kind
    row["mma_sync"] = "mma.sync.aligned" in (program.ptx or "")
    ms = bench_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, args, schedule=schedule, tiles="program"),
                  iters)
    flops = 2.0 * m * n * k * ZOO[name].batch * ZOO[name].dots
    row.update(ms=round(ms, 4), tflops=round(flops / ms / 1e9, 2))
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="2048x2048x2048")
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", default="build/simt_dots.json")
    opts = ap.parse_args(argv)
    m, n, k = (int(x) for x in opts.size.split("x"))
    rows = []
    for name in opts.programs.split(","):
        row = {"program": name, "m": m, "n": n, "k": k}
        for label, schedule, mma in (("simt_mma", "simt", True), ("simt_scalar", "simt", False),
                                     ("tier", "auto", True)):
            try:
                row[label] = _variant(name, m, n, k, schedule, mma, opts.iters)
            except Exception as exc:  # noqa: BLE001 - recorded, the other variants still run
                row[label] = {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
        if "ms" in row["simt_mma"] and "ms" in row["simt_scalar"]:
            row["mma_speedup"] = round(row["simt_scalar"]["ms"] / row["simt_mma"]["ms"], 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
    os.environ.pop("TILEORCH_SIMT_MMA", None)
    Path(opts.out).parent.mkdir(parents=True, exist_ok=True)
    Path(opts.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
