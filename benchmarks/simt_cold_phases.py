"""CPU phases of a cold first compile of the SIMT programs of ``benchmarks/compile_time.py`` (issue 22).

Usage::

    PYTHONPATH=TREE/src python benchmarks/simt_cold_phases.py [-n 3] [--no-ptxas] [NAME ...]

What ``tileorch.cutile.launch`` does the first time a process launches a kernel, up to the module
load, each round in a fresh process (``python -c``): import cuTile and tileorch, export the
kernel's CUDA Tile IR bytecode for the described arguments (cuTile's exporter, no GPU), then
``tileorch.compile`` of that bytecode (cache off, in-process code generation) whose
:mod:`tileorch.timing` report is read with the process's CPU clock: bytecode read (``parse``),
``cuda_tile -> nv_tileaa``, the SIMT lowering, the lowering to the LLVM dialect, LLVM IR
translation, llvmlite code generation and ptxas (a subprocess: its CPU is the children's).
Printed per program: the smallest CPU milliseconds of the rounds for each phase (default names:
softmax_f16, layernorm_bf16, row_sum_f32).  CPU, not wall: a shared machine inflates wall time.
The sources are byte-compiled first (``compile_time.byte_compile_tileorch``, as ``pip install`` leaves an installed
package; ``--no-byte-compile``: as they are): these machines set ``PYTHONDONTWRITEBYTECODE``, and a fresh worktree's
cold process then compiles every module it imports from source (session 43: a cold ``tileorch gemm --compile``'s
tier import 0.65 s without ``.pyc`` files, 0.10 s with them).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIMT = ("softmax_f16", "layernorm_bf16", "row_sum_f32")

_CHILD = r"""
import json, os, resource, sys, time, types
def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime
out = {}
t = cpu()
sys.path.insert(0, os.path.join(sys.argv[1], "benchmarks"))
import cuda.tile  # noqa: F401
import tileorch
from tileorch import timing
timing.time = types.SimpleNamespace(perf_counter=cpu)
import compile_time as ct
out["import"] = cpu() - t
t = cpu()
kernel, spec, _ = ct._cutile_programs()[sys.argv[2]]
out["define"] = cpu() - t
from tileorch.testing.export import cutile_bytecode
t = cpu()
data = cutile_bytecode(kernel, spec)
out["export"] = cpu() - t
t = cpu()
k = tileorch.compile(data, None, cache=False, ptxas=sys.argv[3] == "1", isolate=False)
out["compile"] = cpu() - t
out.update({"compile/" + key: v for key, v in k.timings.items()})
print("RESULT " + json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=3, help="fresh processes per program (the minimum per phase is kept)")
    ap.add_argument("--no-ptxas", action="store_true", help="stop at the PTX")
    ap.add_argument("--no-byte-compile", action="store_true", help="leave the sources' .pyc files as they are")
    ap.add_argument("names", nargs="*", default=list(SIMT))
    args = ap.parse_args(argv)
    if not args.no_byte_compile:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from compile_time import byte_compile_tileorch

        print(byte_compile_tileorch(), file=sys.stderr)
    env = {**os.environ, "TILEORCH_CACHE": "0"}
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.n):
        for name in args.names:
            proc = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), name, "0" if args.no_ptxas else "1"],
                                  capture_output=True, text=True, env=env, check=False)
            line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
            if line is None:
                print(f"{name}: failed\n{proc.stderr[-2000:]}", file=sys.stderr)
                return 1
            mine = best.setdefault(name, {})
            for key, v in json.loads(line[7:]).items():
                mine[key] = min(mine.get(key, v), v)
    keys = list(dict.fromkeys(k for m in best.values() for k in m))
    print(f"{'CPU ms (min of ' + str(args.n) + ' fresh processes)':<58}" + "".join(f"{n[:14]:>15}" for n in best))
    for key in keys:
        print(f"{key:<58}" + "".join(f"{best[n][key] * 1000:15.1f}" if key in best[n] else f"{'-':>15}"
                                      for n in best))
    return 0


if __name__ == "__main__":
    sys.exit(main())
