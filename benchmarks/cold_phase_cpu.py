"""CPU seconds per phase of a cold ``tileorch compile``, main thread only, min of N fresh processes (issue 22: where
a cold memory-bound (SIMT) compile spends its CPU, on a loaded machine).

Usage::

    python benchmarks/cold_phase_cpu.py FILE.tileirbc ... [--tree SRC ...] [-n 5] [--preimport] [--out J.json]

Each round runs ``tileorch compile FILE -o OUT.ptx --timings`` in a fresh process per tree (``PYTHONPATH=SRC``;
default: the tree this script's ``tileorch`` comes from), trees alternated, ``TILEORCH_CACHE=0``, bytecode writing
allowed (``PYTHONDONTWRITEBYTECODE`` unset: the trees' ``.pyc`` files are used, as an installed package's are).
The child reads ``--timings``' clock as the main thread's CPU time (``time.thread_time`` for
:mod:`tileorch.timing`'s ``perf_counter``): each phase's number is the CPU the compiling thread spent in it, not
the wall time, which on a shared 2-core machine says more about the load.  What runs elsewhere is not in the
phases: the code generation child (LLVM) and ptxas; the process total (``proc``: user + system of the process
and its children, ptxas included) is printed beside them.

``--preimport``: before the command, the child imports every module a compile of the same file imported (found by
one compile in a separate process first), so the phases show their own work and ``import`` (and the imports inside
``parse``, ``tile-program``, ...) drop out; the difference from a run without it is what the imports cost in each
phase.

Printed per file and tree: the minimum over the rounds of each top-level phase (and of every pass with ``-a``) in
milliseconds and the minimum and median process CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import importlib, sys, time, types
modules = sys.argv[1]
if modules:
    for name in open(modules).read().split():
        try:
            importlib.import_module(name)
        except Exception:
            pass
import tileorch.timing as timing
timing.time = types.SimpleNamespace(perf_counter=time.thread_time)
sys.argv = ["tileorch", *sys.argv[2:]]
from tileorch.cli.main import program
program()
"""

DISCOVER = r"""
import sys
import tileorch
tileorch.compile(open(sys.argv[1], "rb").read() if sys.argv[1].endswith(".tileirbc") else sys.argv[1], None,
                 cache=False, ptxas=False, isolate=True)
print("\n".join(m for m in sys.modules if m.startswith(("tileorch", "xdsl", "llvmlite"))
                and not m.startswith(("tileorch.cli", "tileorch.testing"))))
"""


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _env(tree: str) -> dict[str, str]:
    env = {**os.environ, "TILEORCH_CACHE": "0", "PYTHONPATH": tree}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def discover(tree: str, path: Path, out: Path) -> Path:
    """A file listing the modules a compile of ``path`` with ``tree`` imports."""
    proc = subprocess.run([sys.executable, "-c", DISCOVER, str(path)], capture_output=True, text=True, env=_env(tree))
    if proc.returncode != 0:
        raise SystemExit(f"{path} with {tree} failed:\n{proc.stderr[-2000:]}")
    out.write_text(proc.stdout)
    return out


def one_run(tree: str, path: Path, ptx: Path, modules: Path | None) -> tuple[float, dict[str, float]]:
    """(process CPU seconds, --timings phases in main-thread CPU seconds) of one cold compile."""
    from tileorch import timing

    c0 = _children_cpu()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(modules or ""), "compile", str(path), "-o", str(ptx),
                           "--timings"], capture_output=True, text=True, env=_env(tree))
    cpu = _children_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"{path} with {tree} failed:\n{proc.stderr[-2000:]}")
    return cpu, timing.parse_report(proc.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--tree", action="append", default=[], help="a src directory (repeatable; default: this one)")
    ap.add_argument("-n", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--preimport", action="store_true", help="import the compile's modules before timing it")
    ap.add_argument("-a", "--all", action="store_true", help="print every pass, not only the phases")
    ap.add_argument("--out", type=Path, default=None, help="JSON record")
    args = ap.parse_args(argv)
    trees = args.tree or [str(Path(__file__).resolve().parents[1] / "src")]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    record = {"load": load, "rounds": args.n, "preimport": args.preimport, "results": {}}
    with tempfile.TemporaryDirectory(prefix="tileorch-phase-cpu-") as tmp:
        for path in args.files:
            lists = {t: discover(t, path, Path(tmp) / f"modules{i}.txt") if args.preimport else None
                     for i, t in enumerate(trees)}
            best: dict[str, dict[str, float]] = {t: {} for t in trees}
            procs: dict[str, list[float]] = {t: [] for t in trees}
            for _ in range(args.n):
                for i, tree in enumerate(trees):
                    cpu, phases = one_run(tree, path, Path(tmp) / f"out{i}.ptx", lists[tree])
                    procs[tree].append(cpu)
                    for name, value in phases.items():
                        best[tree][name] = min(best[tree].get(name, value), value)
            for tree in trees:
                shown = {k: v for k, v in best[tree].items() if args.all or "/" not in k or k == "codegen/verify"}
                print(f"{path.name:24s} {tree[-40:]:40s} proc min {min(procs[tree]) * 1e3:6.1f} "
                      f"median {statistics.median(procs[tree]) * 1e3:6.1f} ms | main thread ms: "
                      + " ".join(f"{k}={v * 1e3:.1f}" for k, v in shown.items()))
                record["results"].setdefault(path.name, {})[tree] = {
                    "proc_cpu_s": procs[tree], "phase_cpu_min_s": best[tree]}
    print(f"load average {load:.1f}; min of {args.n} fresh processes per tree, trees alternated"
          + ("; modules imported before timing" if args.preimport else ""))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
