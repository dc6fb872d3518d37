"""Cached relaunch in a fresh process, two tileorch source trees interleaved (issue 22).

Usage::

    python benchmarks/relaunch_ab.py --src A/src --src B/src [--rounds 15] [--program examples/gemm_sm90.mlir ...]

Each round runs, for each source tree in turn, :data:`compile_time.RELAUNCH` (``import tileorch;
tileorch.compile(FILE)`` answered by the on-disk cache, the command ``benchmarks/compile_time.py``
times as ``relaunch_s``) in a new process with that tree first on ``PYTHONPATH``, and a bare
``python -c pass`` once.  The cache directory is filled once per tree first (a temporary one,
or ``TILEORCH_CACHE_DIR`` when set), and each tree's ``tileorch`` is byte-compiled first
(``compileall``, as ``compile_time.py`` does: an installed package has its ``.pyc``).  Printed per tree and program: the best and median wall
seconds, the child's best CPU seconds (user + system), and the import / call seconds the child
reports of its best run; the trees alternate within a round, so both see the same machine.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compile_time import RELAUNCH  # noqa: E402  (the same command as compile_time's relaunch)

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ("examples/gemm_sm90.mlir", "examples/tile_gemm.mlir", "examples/ws_stream_copy.mlir")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of ``cmd``; a failure raises."""
    c0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} failed: {proc.stderr.strip()[-500:]}")
    return wall, cpu, proc.stdout


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", action="append", required=True, help="a tileorch source tree (PYTHONPATH)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--program", action="append", default=None)
    args = parser.parse_args(argv)
    programs = [str(ROOT / p) for p in (args.program or PROGRAMS)]
    cache = os.environ.get("TILEORCH_CACHE_DIR") or tempfile.mkdtemp(prefix="tileorch-relaunch-ab-")
    # each tree first on the path (the rest of PYTHONPATH kept: where the device session puts xDSL)
    rest = os.environ.get("PYTHONPATH", "")
    envs = [dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(Path(s).resolve()), rest) if p),
                 TILEORCH_CACHE_DIR=cache) for s in args.src]
    for src in args.src:
        compileall.compile_dir(str(Path(src) / "tileorch"), quiet=1)
    for env in envs:  # fill the cache (each tree computes its own key; equal sources share entries)
        for p in programs:
            run([sys.executable, "-c", "import sys, tileorch; tileorch.compile(sys.argv[1], None, isolate=True)", p],
                env)
    walls: dict[tuple[int, str], list[tuple[float, float, list[str]]]] = {}
    bare = []
    for _ in range(args.rounds):
        bare.append(run([sys.executable, "-c", "pass"], envs[0])[0])
        for p in programs:
            for i, env in enumerate(envs):
                wall, cpu, out = run([sys.executable, "-c", RELAUNCH, p], env)
                fields = out.split()
                assert fields[2] == "True", f"{p}: not a cache hit under {args.src[i]}"
                walls.setdefault((i, p), []).append((wall, cpu, fields))
    print(f"python -c pass: best {min(bare):.4f} s, median {statistics.median(bare):.4f} s ({args.rounds} runs)")
    for p in programs:
        for i, src in enumerate(args.src):
            runs = walls[(i, p)]
            best = min(runs)
            print(f"{Path(p).name:24s} {src:32s} wall best {best[0]:.4f} median {statistics.median(r[0] for r in runs):.4f}"
                  f"  cpu best {min(r[1] for r in runs):.4f}  (best run: import {float(best[2][0]):.4f}, call "
                  f"{float(best[2][1]):.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
