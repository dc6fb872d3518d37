"""cuTile dot programs (the zoo of ``tileorch.testing.dot_programs``) through tileorch and
through NVIDIA's tileiras (``cuda.tile.launch``), beside the torch library call a user would make
instead, in one process with one timing method.

    python benchmarks/tile_programs.py [--sizes 4096x4096x4096,...] [--out DIR] [--iters N]

Per program and size: outputs are NaN-prefilled and checked against torch fp32 first (each
compiler's own output); then the median of ``--iters`` CUDA-event-timed launches queued behind a
GPU sleep (:func:`bench_ms`) for tileorch (``tileorch.cutile.launch``, tiles chosen
by tileorch), tileiras (skipped with the reason when cuTile cannot find it) and the library
call (integer programs: ``torch._int_mm``; their TFLOP/s read as TOP/s, and their int32 outputs
must match exactly: ``*_rel_err`` 0).  Prints TFLOP/s and the ratios tileorch/tileiras and tileorch/library; writes
``tile_programs.json`` and ``tile_programs.png`` to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path


from tileorch.testing.timing import bench_ms  # noqa: E402 - one timing method for every benchmark


def _error(out, ref) -> float:
    from tileorch.testing.dot_programs import unwritten

    if unwritten(out).any():
        return float("nan")
    return float(((out.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-6)).item())


def run_one(name: str, m: int, n: int, k: int, iters: int) -> dict:
    import cuda.tile as ct
    import torch

    import tileorch.cutile
    from tileorch.testing.dot_programs import build, refill

    from tileorch.testing.dot_programs import PROGRAMS

    row: dict = {"program": name, "m": m, "n": n, "k": k, "batch": PROGRAMS[name].batch}
    flops = 2.0 * m * n * k * PROGRAMS[name].batch * PROGRAMS[name].dots  # dots sharing A: each one
    stream = torch.cuda.current_stream()
    kernel, args, grid, out, ref, lib = build(name, m, n, k, seed=1)
    start = time.perf_counter()
    tileorch.cutile.launch(stream, grid, kernel, args)
    torch.cuda.synchronize()
    row["tileorch_first_launch_s"] = round(time.perf_counter() - start, 3)
    row["tileorch_rel_err"] = _error(out, ref)
    row["tileorch_ms"] = bench_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, args), iters)
    refill(out)
    try:
        start = time.perf_counter()
        ct.launch(stream, grid, kernel, args)
        torch.cuda.synchronize()
        row["tileiras_first_launch_s"] = round(time.perf_counter() - start, 3)
        row["tileiras_rel_err"] = _error(out, ref)
        row["tileiras_ms"] = bench_ms(lambda: ct.launch(stream, grid, kernel, args), iters)
    except Exception as exc:  # noqa: BLE001 - reported in the record
        row["tileiras_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
    if lib is not None:  # (a mixed-signedness int8 GEMM has no torch call)
        row["library_ms"] = bench_ms(lib, iters)
    for key in ("tileorch", "tileiras", "library"):
        if f"{key}_ms" in row:
            row[f"{key}_tflops"] = round(flops / row[f"{key}_ms"] / 1e9, 1)
    if "tileiras_ms" in row:
        row["vs_tileiras"] = round(row["tileiras_ms"] / row["tileorch_ms"], 3)
    if "library_ms" in row:
        row["vs_library"] = round(row["library_ms"] / row["tileorch_ms"], 3)
    return row


def plot(rows: list[dict], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    labels = [f"{r['program']}\n{r['m']}x{r['n']}x{r['k']}" for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(rows)), 4))
    width = 0.27
    for i, key in enumerate(("tileorch", "tileiras", "library")):
        vals = [r.get(f"{key}_tflops", 0) for r in rows]
        ax.bar([x + (i - 1) * width for x in range(len(rows))], vals, width, label=key)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("TFLOP/s")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4096x4096x4096,8192x8192x4096")
    ap.add_argument("--programs", default="")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--out", default="build/tile_programs")
    ns = ap.parse_args(argv)
    import torch

    from tileorch.testing.dot_programs import PROGRAMS

    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    sizes = [tuple(int(x) for x in s.split("x")) for s in ns.sizes.split(",") if s]
    names = [p for p in ns.programs.split(",") if p] or [name for name, p in PROGRAMS.items() if p.bench]
    rows = []
    for name in names:
        for (m, n, k) in sizes:
            try:
                row = run_one(name, m, n, k, ns.iters)
            except Exception as exc:  # noqa: BLE001 - one failure does not hide the rest
                row = {"program": name, "m": m, "n": n, "k": k, "error": f"{type(exc).__name__}: {exc}"[:500]}
            rows.append(row)
            print(json.dumps(row), flush=True)
    ratios = [r["vs_tileiras"] for r in rows if "vs_tileiras" in r]
    summary = {"device": torch.cuda.get_device_name(), "rows": rows,
               "geomean_vs_tileiras": round(math.exp(sum(map(math.log, ratios)) / len(ratios)), 3) if ratios else None}
    (out / "tile_programs.json").write_text(json.dumps(summary, indent=1))
    plot([r for r in rows if "tileorch_tflops" in r], out / "tile_programs.png")
    print(f"{'program':32s} {'size':>16s} {'tileorch':>9s} {'tileiras':>9s} {'library':>9s} {'/tileiras':>9s} {'/library':>9s}")
    for r in rows:
        size = f"{r['m']}x{r['n']}x{r['k']}"
        if "error" in r:
            print(f"{r['program']:32s} {size:>16s} ERROR {r['error'][:120]}")
            continue
        print(f"{r['program']:32s} {size:>16s} {r['tileorch_tflops']:9.1f} {r.get('tileiras_tflops', float('nan')):9.1f} "
              f"{r.get('library_tflops', float('nan')):9.1f} {r.get('vs_tileiras', float('nan')):9.3f} "
              f"{r.get('vs_library', float('nan')):9.3f}")
    print("geomean vs tileiras:", summary["geomean_vs_tileiras"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
