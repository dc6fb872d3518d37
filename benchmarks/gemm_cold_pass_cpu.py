"""Per phase and per pass CPU of a cold GEMM compile against a warm one, min of N fresh processes (issue 22: what
a first compile pays beyond the work itself, pass by pass).

Usage::

    python benchmarks/gemm_cold_pass_cpu.py [--tree SRC ...] [-n 5] [--mnk 4096x4096x4096] [--out J.json]

Per round and tree (``PYTHONPATH=SRC``; default: the tree this script's ``tileorch`` comes from; trees
alternated; ``TILEORCH_CACHE=0``; bytecode writing allowed, so the trees' ``.pyc`` files are used as an installed
package's are) one fresh process compiles the configuration ``tileorch gemm M N K --compile`` compiles
(``compile_gemm(cfg, use_cache=False)``) twice: the first compile is cold (the compiler's modules imported and its
lazy tables built inside it), the second warm.  :mod:`tileorch.timing`'s clock reads the process's CPU
(``time.process_time``), so every phase and pass (``tier/<pass>``, ``lower/<pass>``) is this process's CPU in it,
whatever the machine's load; the code generation child and ptxas are reported as ``children`` (CPU of the reaped
children), not in the phases.

Printed per tree: min over the rounds of each key, cold and warm, and their difference (what the first use costs:
imports, lazy formats, caches).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, resource, sys, time
t_start = time.process_time()
from tileorch import timing

class _Cpu:
    perf_counter = staticmethod(time.process_time)

timing.time = _Cpu
from tileorch.launchers.gemm import default_config
from tileorch.launchers.gemm_host import compile_gemm

m, n, k = (int(v) for v in sys.argv[1].split("x"))
cfg = default_config(m, n, k, sys.argv[2], sys.argv[2], "k", "auto", 132)
out = {"startup": time.process_time()}

def children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

for label in ("cold", "warm"):
    c0 = children()
    s0 = time.process_time()
    r = compile_gemm(cfg, use_cache=False)
    out[label] = {"self": time.process_time() - s0, "children": children() - c0, **r.seconds}
out["config"] = cfg.name
print(json.dumps(out))
"""


def run(tree: str | None, mnk: str, dtype: str) -> dict:
    env = dict(os.environ, TILEORCH_CACHE="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if tree:
        env["PYTHONPATH"] = tree
    proc = subprocess.run([sys.executable, "-c", _CHILD, mnk, dtype], capture_output=True, text=True, env=env,
                          check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", default=None, help="a tileorch src directory (repeatable)")
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--mnk", default="4096x4096x4096")
    ap.add_argument("--dtype", default="bf16")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    trees = args.tree or [None]
    for tree in trees:  # byte-compiled first (as an installed package is)
        subprocess.run([sys.executable, "-m", "compileall", "-q", tree or str(ROOT / "src")], check=True,
                       capture_output=True)
    rounds: dict[str, list[dict]] = {str(t): [] for t in trees}
    for _ in range(args.n):
        for tree in trees:
            rounds[str(tree)].append(run(tree, args.mnk, args.dtype))
    record = {"load": os.getloadavg(), "n": args.n, "mnk": args.mnk, "trees": {}}
    for tree, runs in rounds.items():
        keys = list(runs[0]["cold"])
        best = {label: {key: min(r[label].get(key, 0.0) for r in runs) for key in keys} for label in ("cold", "warm")}
        best["startup"] = min(r["startup"] for r in runs)
        record["trees"][tree] = {"best": best, "runs": runs}
        print(f"{tree} ({runs[0]['config']}, min of {args.n}, load {record['load'][0]:.1f}): CPU ms cold / warm / "
              "cold - warm")
        print(f"  {'startup (interpreter, imports before the compile)':56s} {best['startup'] * 1e3:7.1f}")
        for key in keys:
            if key == "total":
                continue
            c, w = best["cold"][key] * 1e3, best["warm"][key] * 1e3
            if max(c, w) < 0.3 and "/" in key:
                continue
            print(f"  {key:56s} {c:7.1f} {w:7.1f} {c - w:7.1f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
