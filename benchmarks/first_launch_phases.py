"""Where the first ``tileorch.cutile.launch`` of a cuTile GEMM program spends its time (issue 22):
the bytecode export (cuTile's front end), each compile the launcher runs (the deferred tier-only
compile, the full compile of the configuration that runs, with their ``--timings`` phases), the
module load and the launch, then ``cuda.tile.launch``'s first launch of the same program (tileiras).

    python benchmarks/first_launch_phases.py [--size 4096] [--out DIR] PROGRAM ...

Each program runs in a fresh process with an empty ``TILEORCH_CACHE_DIR``, after one launch of
another program (``gemm_f16`` at 256^3: the compiler's and cuTile's imports and first uses are
paid there, as they are by the first row of ``benchmarks/tile_programs.py``), so the row is the
program's own first-launch cost.  The launcher's steps are timed by wrapping its functions in this
process (``export_bytecode``, ``_compile_program``, ``GemmKernel``); the rest of the first launch
is ``other``.  Wall and CPU seconds (CPU: this process, the code generation child and ptxas).
Prints one line per program and writes ``first_launch_phases.json`` to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + r.ru_utime + r.ru_stime


def _timed(record: list, label: str, fn):
    """``fn`` wrapped: each call appends (label, wall, CPU, result's timings) to ``record``."""

    def wrapper(*args, **kwargs):
        w, c = time.perf_counter(), _cpu()
        out = fn(*args, **kwargs)
        timings = getattr(out, "timings", None) or {}
        record.append({"step": label, "wall_s": round(time.perf_counter() - w, 4), "cpu_s": round(_cpu() - c, 4),
                       "deferred": bool(getattr(out, "deferred", False)),
                       "phases": {k: round(v, 4) for k, v in timings.items() if "/" not in k}})
        return out

    return wrapper


def one(name: str, size: int) -> dict:
    """The first launch of ``name`` in this (fresh) process, its steps timed."""
    import cuda.tile as ct
    import torch

    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.launchers import gemm_host
    from tileorch.testing.dot_programs import build

    stream = torch.cuda.current_stream()
    kernel, args, grid, *_ = build("gemm_f16", 256, 256, 256, seed=1)  # imports and first uses, not timed
    tileorch.cutile.launch(stream, grid, kernel, args)
    torch.cuda.synchronize()
    steps: list = []
    rc.export_bytecode = _timed(steps, "export", rc.export_bytecode)
    rc._compile_program = _timed(steps, "compile", rc._compile_program)
    gemm_host.GemmKernel = _timed(steps, "load", gemm_host.GemmKernel)
    kernel, args, grid, out, ref, lib = build(name, size, size, size, seed=1)
    w, c = time.perf_counter(), _cpu()
    tileorch.cutile.launch(stream, grid, kernel, args)
    torch.cuda.synchronize()
    row = {"program": name, "size": size, "first_launch_s": round(time.perf_counter() - w, 4),
           "first_launch_cpu_s": round(_cpu() - c, 4), "steps": steps}
    row["other_s"] = round(row["first_launch_s"] - sum(s["wall_s"] for s in steps), 4)
    w = time.perf_counter()
    try:
        ct.launch(stream, grid, kernel, args)
        torch.cuda.synchronize()
        row["tileiras_first_launch_s"] = round(time.perf_counter() - w, 4)
    except Exception as exc:  # noqa: BLE001 - no tileiras on this machine: said in the row
        row["tileiras_error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", nargs="+")
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--out", default="build/first_launch_phases")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # the child's mode
    a = ap.parse_args(argv)
    if a.one:
        print(json.dumps(one(a.programs[0], a.size)))
        return 0
    rows = []
    for name in a.programs:
        with tempfile.TemporaryDirectory(prefix="tileorch-first-launch-") as cache:
            env = {**os.environ, "TILEORCH_CACHE_DIR": cache}
            proc = subprocess.run([sys.executable, __file__, "--one", "--size", str(a.size), name],
                                  capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            rows.append({"program": name, "error": proc.stderr.strip().splitlines()[-3:]})
            print(f"{name}: failed: {rows[-1]['error']}")
            continue
        row = json.loads(proc.stdout.strip().splitlines()[-1])
        rows.append(row)
        steps = ", ".join(f"{s['step']}{'(deferred)' if s['deferred'] else ''} {s['wall_s']:.3f}" for s in row["steps"])
        print(f"{name}: first launch {row['first_launch_s']:.3f} s (CPU {row['first_launch_cpu_s']:.3f}; {steps}, "
              f"other {row['other_s']:.3f}); tileiras {row.get('tileiras_first_launch_s', row.get('tileiras_error'))}")
        for s in row["steps"]:
            if s["phases"]:
                print(f"    {s['step']}{'(deferred)' if s['deferred'] else ''}: {s['phases']}")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "first_launch_phases.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
