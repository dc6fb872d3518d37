"""Warm compile time against the size of the lowered kernel (issue 22): what a compile costs per op.

Usage::

    python benchmarks/compile_op_slope.py FILE.tileirbc ... [--repeat 3] [--out SLOPE.json]

For each input: one compile to warm the process (imports, first-use definitions, LLVM), then the
best of ``--repeat`` compiles by CPU seconds (``time.process_time``: this process; ptxas off and
LLVM's code generation in this process, ``tileorch.compile(..., cache=False, ptxas=False,
isolate=False)``), with the number of ops of the lowered module handed to the LLVM translation
(every op of the module, its functions and their bodies) and the PTX's instruction lines (not
blank, not a ``//`` comment, not a directive or label or brace).  The per-phase wall seconds of
that best compile (:mod:`tileorch.timing`) are divided by the op count too.  A least-squares line
``cpu = fixed + per_op * ops`` over the inputs is printed: on the 2-core machine (session 22) the
SIMT programs fit ~0.02 s + ~120 us per op, i.e. a warm compile is almost all per-op work, and a
program's compile time follows the size of the code the emitter makes.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import sys
import time
from pathlib import Path

_INSTRUCTION = re.compile(r"^\s*(?!//|\.|\$|\{|\}|$)[a-z@]")


def ptx_instructions(ptx: str) -> int:
    """PTX lines that are instructions (``@p`` guarded ones too)."""
    return sum(1 for line in ptx.splitlines() if _INSTRUCTION.match(line) and not line.rstrip().endswith(":"))


def measure(path: Path, repeat: int) -> dict:
    import tileorch
    from tileorch import timing
    from tileorch.backend import compile as backend_compile

    translate = backend_compile.translate_module
    ops = [0]

    def counting(module):
        ops[0] = sum(1 for _ in module.walk())
        return translate(module)

    data = path.read_bytes() if path.suffix == ".tileirbc" else path.read_text()
    backend_compile.translate_module = counting
    try:
        tileorch.compile(data, None, cache=False, ptxas=False, isolate=False)
        best, phases, kernel = float("inf"), {}, None
        for _ in range(repeat):
            with timing.collect() as timer:
                t0 = time.process_time()
                kernel = tileorch.compile(data, None, cache=False, ptxas=False, isolate=False)
                cpu = time.process_time() - t0
            if cpu < best:
                best, phases = cpu, timer.as_dict()
    finally:
        backend_compile.translate_module = translate
    n = ops[0]
    return {"ops": n, "ptx_instructions": ptx_instructions(kernel.ptx), "warm_cpu_s": round(best, 4),
            "us_per_op": round(best / n * 1e6, 1) if n else None,
            "phase_us_per_op": {k: round(v / n * 1e6, 1) for k, v in phases.items() if n and "/" not in k}}


def fit(rows: list[dict]) -> tuple[float, float] | None:
    """(fixed seconds, seconds per op) of the least-squares line through (ops, warm_cpu_s)."""
    pts = [(r["ops"], r["warm_cpu_s"]) for r in rows if r["ops"]]
    if len(pts) < 2:
        return None
    n = len(pts)
    mx, my = sum(x for x, _ in pts) / n, sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return None
    slope = sum((x - mx) * (y - my) for x, y in pts) / sxx
    return my - slope * mx, slope


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None, help="JSON record")
    args = ap.parse_args(argv)
    gc.disable()  # as the tileorch program runs: no collection timing luck in one compile
    rows = {}
    print(f"{'program':44s} {'ops':>6s} {'ptx':>6s} {'cpu s':>7s} {'us/op':>6s}  phase us/op")
    for path in args.files:
        r = rows[path.stem] = measure(path, args.repeat)
        print(f"{path.stem:44s} {r['ops']:6d} {r['ptx_instructions']:6d} {r['warm_cpu_s']:7.3f} {r['us_per_op']:6.0f}  "
              + " ".join(f"{k} {v:.0f}" for k, v in r["phase_us_per_op"].items() if k not in ("total", "read", "cache")),
              flush=True)
    line = fit(list(rows.values()))
    if line is not None:
        print(f"fit: warm cpu = {line[0]:.3f} s + {line[1] * 1e6:.0f} us x ops")
    if args.out:
        args.out.write_text(json.dumps({"repeat": args.repeat, "rows": rows,
                                        "fit": None if line is None else {"fixed_s": round(line[0], 4),
                                                                          "us_per_op": round(line[1] * 1e6, 1)}},
                                       indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
