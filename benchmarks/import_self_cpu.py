"""CPU seconds each module's import costs in a cold ``tileorch compile`` (issue 22: which imports
are on a cold compile's path, and what each costs by itself).

Usage::

    PYTHONPATH=TREE/src python benchmarks/import_self_cpu.py FILE [--repeat 5] [--top 40] [--out J.json] [-- COMPILE ARGS]
    PYTHONPATH=TREE/src python benchmarks/import_self_cpu.py --gemm 4096x4096x4096 [--repeat 5] ...

Each round is a fresh process running ``tileorch compile FILE -o OUT.ptx --no-ptxas`` (plus the
arguments after ``--``) as the ``tileorch`` program runs it (the dataclass-code table installed,
the cyclic collector off), with ``importlib``'s module loader wrapped: a module's *self* CPU is
``time.process_time`` spent executing it, less what the modules it imports took
(``-X importtime`` measures wall time, which on a loaded machine says more about the load than
about the module).  Printed: the minimum over the rounds of each module's self CPU, the top
``--top`` modules, and the sum per package (``xdsl.dialects``, ``tileorch.dialects``, ...); the
JSON has every module.  The sum is the import share of the compile's CPU; the modules listed
are those the compile imported (lazily imported ones included, when their first use came), less
the few imported before the loader is wrapped (``tileorch``'s package, ``tileorch.dataclass_code``,
``dataclasses`` and what it imports: ~0.02 s).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

CHILD = r"""
import gc, json, sys, time
gc.disable()
from tileorch import dataclass_code
dataclass_code.install()
import importlib._bootstrap as bootstrap
stack, self_cpu = [], {}
load = bootstrap._load_unlocked

def timed_load(spec):
    t0 = time.process_time()
    stack.append(0.0)
    try:
        return load(spec)
    finally:
        spent = time.process_time() - t0
        self_cpu[spec.name] = self_cpu.get(spec.name, 0.0) + spent - stack.pop()
        if stack:
            stack[-1] += spent

bootstrap._load_unlocked = timed_load
out, argv = sys.argv[1], sys.argv[2:]
from tileorch.cli.main import main
try:
    main(argv)
except SystemExit as exc:
    if exc.code:
        raise
with open(out, "w") as f:
    json.dump({"modules": self_cpu, "process_cpu": time.process_time()}, f)
"""


def package(name: str) -> str:
    """The group a module is summed in: ``xdsl.<sub>``, ``tileorch.<sub>``, else its top package."""
    parts = name.split(".")
    return ".".join(parts[:2]) if parts[0] in ("xdsl", "tileorch") and len(parts) > 1 else parts[0]


def one_round(path: Path, extra: list[str], tmp: str, gemm: str | None = None) -> dict:
    record = os.path.join(tmp, "imports.json")
    if gemm:  # ``tileorch gemm M N K --compile`` (ptxas included: it runs as a child)
        argv = ["gemm", *gemm.split("x"), "--compile", *extra]
    else:
        argv = ["compile", str(path), "-o", os.path.join(tmp, "out.ptx"), "--no-ptxas", *extra]
    env = {**os.environ, "TILEORCH_CACHE": "0"}
    proc = subprocess.run([sys.executable, "-c", CHILD, record, *argv], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"compile of {path} failed:\n{proc.stderr[-2000:]}")
    with open(record) as f:
        return json.load(f)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", type=Path, nargs="?", default=None)
    ap.add_argument("--gemm", default=None, metavar="MxNxK",
                    help="time `tileorch gemm M N K --compile` instead of compiling FILE")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    if (args.file is None) == (args.gemm is None):
        ap.error("give FILE or --gemm MxNxK")
    with tempfile.TemporaryDirectory(prefix="tileorch-imports-") as tmp:
        rounds = [one_round(args.file, extra, tmp, args.gemm) for _ in range(args.repeat)]
    names = set().union(*(r["modules"] for r in rounds))
    best = {m: min(r["modules"].get(m, float("inf")) for r in rounds) for m in names}
    best = {m: v for m, v in best.items() if v != float("inf")}
    groups: Counter[str] = Counter()
    for m, v in best.items():
        groups[package(m)] += v
    process = min(r["process_cpu"] for r in rounds)
    total = sum(best.values())
    label = f"gemm {args.gemm}" if args.gemm else args.file.name
    print(f"{label}: {len(best)} modules, import self CPU {total:.3f} s of the process's {process:.3f} s "
          f"(min of {args.repeat} rounds each)")
    print("per package (ms):")
    for g, v in groups.most_common(16):
        print(f"  {1000 * v:7.1f}  {g}")
    print(f"top {args.top} modules (ms):")
    for m, v in sorted(best.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {1000 * v:7.2f}  {m}")
    if args.out:
        args.out.write_text(json.dumps({"file": str(args.file or f"gemm {args.gemm}"), "repeat": args.repeat, "process_cpu_min": process,
                                        "import_self_cpu_sum": total, "packages": dict(groups.most_common()),
                                        "modules": dict(sorted(best.items(), key=lambda kv: -kv[1]))}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
