"""The cyclic collector's work during a cuTile program's first ``tileorch.cutile.launch`` compile in a fresh
process (issue 22): each collection (generation, milliseconds, objects it freed) while ``rc.compiled`` runs
(cuTile's export, then tileorch's compile), no GPU.

Usage::

    python benchmarks/first_compile_gc.py [--tree SRC ...] [--programs softmax_f16 ...] [--repeat 3]

One fresh process per tree, program and round (``TILEORCH_CACHE=0``; the kernels of
``benchmarks/cutile_cold_launch.py``); printed per run: the collections (``gen:ms:freed``), their sum,
the process CPU of ``rc.compiled`` and the objects the collector tracks afterwards.  Session 36: a first
compile runs with the collector off and moves what it made to the oldest generation
(``tileorch.gc_deferral.gc_deferred``), so the head tree shows no collection where main showed four
(two in the export's block, two in the compile's: 40-90 ms at load 3-5 on the 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r'''
import gc, sys, time
name, kdir = sys.argv[1], sys.argv[2]
events, start = [], {}
def watch(phase, info):
    if phase == "start":
        start["t"] = time.perf_counter()
    else:
        events.append((info["generation"], (time.perf_counter() - start["t"]) * 1000, info["collected"]))
import cuda.tile
from tileorch.launchers import cutile as rc
sys.path.insert(0, kdir)
import cold_kernels
from tileorch.testing.export import described_arguments
kernel, spec = cold_kernels.PROGRAMS[name]
arguments = described_arguments(kernel, spec)
gc.callbacks.append(watch)
cpu = time.process_time()
entry = rc.compiled(kernel, arguments, "sm_90a", "auto")
cpu = time.process_time() - cpu
gc.callbacks.remove(watch)
assert entry.program.cubin
print("RUN", " ".join(f"{g}:{ms:.1f}:{n}" for g, ms, n in events) or "-", f"sum {sum(e[1] for e in events):.1f} ms",
      f"cpu {cpu:.3f} s", f"tracked {len(gc.get_objects())}")
'''


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(HERE))
    from cutile_cold_launch import KERNELS

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", default=None, help="a src directory (repeatable; default ours)")
    ap.add_argument("--programs", nargs="*", default=["softmax_f16", "layernorm_bf16", "row_sum_f32"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    trees = args.tree or [str(HERE.parent / "src")]
    work = Path(tempfile.mkdtemp(prefix="tileorch-first-gc-"))
    (work / "cold_kernels.py").write_text(KERNELS)
    for r in range(args.repeat):
        for p in args.programs:
            for i, t in enumerate(trees):
                env = {**os.environ, "TILEORCH_CACHE": "0", "PYTHONPATH": t}
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                proc = subprocess.run([sys.executable, "-c", CHILD, p, str(work)], capture_output=True, text=True,
                                      env=env, timeout=300)
                line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RUN ")), proc.stderr[-500:])
                print(f"round {r} {p:15} tree{i}: {line.removeprefix('RUN ')}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
