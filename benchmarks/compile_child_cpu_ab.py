"""CPU of a cold ``tileorch compile``'s own process and of its code generation child, two source
trees alternated (issue 22: a change to the child, e.g. ``tileorch.backend.llvm_direct``).

Usage::

    python benchmarks/compile_child_cpu_ab.py BEFORE_SRC AFTER_SRC FILE.tileirbc ... [--rounds 5] [--out J.json]

Each round runs ``tileorch compile FILE -o OUT.ptx --no-ptxas`` once per tree (a fresh process,
``TILEORCH_CACHE=0``, ``PYTHONPATH`` set to the tree); without ptxas the code generation child
(``tileorch.backend.ptx.prefork_codegen``) is the process's only child, so its CPU (user +
system) is the process's ``RUSAGE_CHILDREN`` at exit, printed from an ``atexit`` handler beside
the process's own (``RUSAGE_SELF``).  Per program and tree: the median of the rounds of each.
``benchmarks/compile_cold_ab.py`` gives the whole compile (ptxas included) and tileiras beside it;
this one separates what the child costs, which the load of a shared machine hides in the total.
Write ``.pyc`` files in both trees first (``PYTHONDONTWRITEBYTECODE`` unset, one compile each).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

_PROBE = """\
import atexit, resource, runpy, sys
def _report():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    print("CPU", own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime, file=sys.stderr)
atexit.register(_report)
sys.argv = ["tileorch", "compile", sys.argv[1], "-o", sys.argv[2], "--no-ptxas"]
runpy.run_module("tileorch", run_name="__main__")
"""


def cpu_of(tree: str, path: Path, out: Path) -> tuple[float, float]:
    """(own CPU, children's CPU) of one cold compile of ``path`` with ``tree`` on PYTHONPATH."""
    env = {**os.environ, "TILEORCH_CACHE": "0", "PYTHONPATH": tree}
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(path), str(out)], env=env, capture_output=True, text=True)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("CPU ")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"{path} with {tree} failed:\n{proc.stderr[-2000:]}")
    _, own, kids = lines[-1].split()
    return float(own), float(kids)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", type=Path, default=None, help="JSON record")
    args = ap.parse_args(argv)
    trees = {"before": args.before, "after": args.after}
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="tileorch-child-ab-") as tmp:
        for path in args.files:
            runs = {k: {"process": [], "child": []} for k in trees}
            for _ in range(args.rounds):
                for k, tree in trees.items():
                    own, kids = cpu_of(tree, path, Path(tmp) / "out.ptx")
                    runs[k]["process"].append(round(own, 4))
                    runs[k]["child"].append(round(kids, 4))
            med = {k: {m: round(statistics.median(v), 4) for m, v in runs[k].items()} for k in trees}
            results[path.stem] = {"median_cpu_s": med, "runs": runs}
            print(f"{path.stem:42s} child {med['before']['child']:.4f} -> {med['after']['child']:.4f}   "
                  f"process {med['before']['process']:.4f} -> {med['after']['process']:.4f}", flush=True)
    if args.out is not None:
        args.out.write_text(json.dumps({"rounds": args.rounds, "trees": trees, "load": list(os.getloadavg()),
                                        "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
