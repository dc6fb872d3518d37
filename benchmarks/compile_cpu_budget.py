"""Where a cold ``tileorch compile`` of a cuTile program spends its CPU (issue 22): one fresh
process per program, CPU seconds per component, the first compile of the process beside a
second (warm) one.

Usage::

    python benchmarks/compile_cpu_budget.py FILE.tileirbc ... [--repeat 3] [--tileiras PATH] [--out J.json]

Per program (the median of ``--repeat`` fresh processes, ``PYTHONPATH`` as given, ``TILEORCH_CACHE=0``):

* ``startup``: ``python -c pass`` (the interpreter alone);
* ``import xdsl``: the xDSL modules a cuTile -> SIMT compile imports (builtin, llvm, arith, scf,
  cf, func, the rewriter and pass machinery), with the dataclass-code table installed as the
  ``tileorch`` command does;
* ``import tileorch``: the compiler's modules the command imports before reading the input
  (driver, backend, the SIMT route's passes), xDSL's already loaded;
* ``llvmlite``: loading LLVM (``import llvmlite.binding`` and its target initialisation);
* ``load`` / ``tile`` / ``backend`` (lowering pipeline + verification + LLVM IR) / ``codegen``
  (LLVM -> PTX in process) / ``ptxas`` (child CPU): the first compile in the process, and
  ``warm_*`` the same phases of a second compile of the same input (their difference is the
  first use's cost: lazily imported modules, ops defined on first use);
* ``tileiras`` (``--tileiras``): CPU of ``tileiras --gpu-name=sm_90`` on the same file.

Each component is measured with ``time.process_time`` in the process (children by
``RUSAGE_CHILDREN``), so the sum is a budget of the cold compile's CPU, not a profile of it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

XDSL = ("xdsl.dialects.builtin", "xdsl.dialects.llvm", "xdsl.dialects.arith", "xdsl.dialects.scf",
        "xdsl.dialects.cf", "xdsl.dialects.func", "xdsl.pattern_rewriter", "xdsl.passes", "xdsl.parser",
        "xdsl.printer", "xdsl.backend.llvm.convert", "xdsl.transforms.convert_scf_to_cf")
TILEORCH = ("tileorch.cli.compile", "tileorch.driver", "tileorch.backend.compile", "tileorch.backend.ptx",
            "tileorch.registry", "tileorch.frontend.cutile")

CHILD = r'''
import importlib, json, os, resource, sys, time
def cpu(): return time.process_time()
def kids():
    r = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime + r.ru_stime
out = {}
t = cpu()
import tileorch.dataclass_code as dc; dc.install()
import tileorch.dialects.lazy_formats
for m in XDSL: importlib.import_module(m)
out["import xdsl"] = cpu() - t
t = cpu()
for m in TILEORCH: importlib.import_module(m)
out["import tileorch"] = cpu() - t
t = cpu()
from tileorch.backend import ptx as P
P._init_llvm()
out["llvmlite"] = cpu() - t
import gc; gc.disable()
from tileorch.driver import compile_module, lower_program
from tileorch.frontend.cutile import load
from tileorch.registry import make_context
from tileorch.backend.ptxas import run_ptxas
path = sys.argv[1]; data = open(path, "rb").read()
def once(prefix):
    t = cpu(); ctx = make_context(); m = load(data, path, ctx); out[prefix + "load"] = cpu() - t
    t = cpu(); kind, m = lower_program(m, ctx, "sm_90a", "persistent", remarks=[]); out[prefix + "tile"] = cpu() - t
    t = cpu(); r = compile_module(m, ctx, arch="sm_90a", emit="llvm", ptxas=False, isolate=False, kind=kind)
    out[prefix + "backend"] = cpu() - t
    t = cpu(); ptx = P.codegen(r.llvm_ir, "sm_90a", P.DEFAULT_PTX_VERSION); out[prefix + "codegen"] = cpu() - t
    k = kids(); run_ptxas(ptx, "sm_90a"); out[prefix + "ptxas"] = kids() - k
once("")
once("warm_")
print(json.dumps(out))
'''


def _cpu_of(cmd: list[str], env: dict) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def budget(path: Path, env: dict) -> dict[str, float]:
    code = f"XDSL = {XDSL!r}\nTILEORCH = {TILEORCH!r}\n" + CHILD
    proc = subprocess.run([sys.executable, "-c", code, str(path)], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{path}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tileiras", default=None)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    env = {**os.environ, "TILEORCH_CACHE": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    results = {}
    for path in args.files:
        runs = []
        startup, tileiras = [], []
        for _ in range(args.repeat):
            startup.append(_cpu_of([sys.executable, "-c", "pass"], env))
            runs.append(budget(path, env))
            if args.tileiras:
                bindir = Path(args.tileiras).resolve().parent
                tenv = {**env, "PATH": f"{bindir}{os.pathsep}{env.get('PATH', '')}",
                        "LD_LIBRARY_PATH": f"{bindir.parent / 'lib'}{os.pathsep}{env.get('LD_LIBRARY_PATH', '')}"}
                tileiras.append(_cpu_of([args.tileiras, "--gpu-name=sm_90", "-o", os.devnull, str(path)], tenv))
        row = {"startup": statistics.median(startup)}
        row.update({k: statistics.median(r[k] for r in runs) for k in runs[0]})
        first = [k for k in row if not k.startswith("warm_")]
        row["sum (cold)"] = sum(row[k] for k in first)
        if tileiras:
            row["tileiras"] = statistics.median(tileiras)
        results[path.stem] = {k: round(v, 4) for k, v in row.items()}
        print(path.stem, " ".join(f"{k}={v:.3f}" for k, v in results[path.stem].items()), flush=True)
    if args.out:
        args.out.write_text(json.dumps({"repeat": args.repeat, "load": os.getloadavg(), "results": results},
                                       indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
