"""Cold ``tileorch compile`` CPU time of two source trees, interleaved, with a PTX identity check.

Usage::

    git archive BASE src | tar -x -C /tmp/base
    python benchmarks/compile_cpu_ab.py --before /tmp/base/src --after src -n 3 \\
        --out build/compile_cpu_ab.json examples/*.mlir build/compile_time/*.tileirbc

For each input, ``python -m tileorch.cli.main compile FILE -o OUT.ptx`` runs ``-n`` times per
tree in fresh processes (``TILEORCH_CACHE=0``, ``PYTHONPATH`` = the tree), alternating the trees
so that a busy machine slows both alike.  The number kept is the smallest CPU time (user +
system of the process and its children: forked code generation, ptxas): on a shared machine
the CPU time is steadier than the wall time.  ``ptx_identical`` says whether both trees wrote
the same PTX.  (``benchmarks/compile_time.py`` exports the cuTile ``.tileirbc`` inputs.)
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


def cold_cpu(src: str, path: str, out: str) -> float:
    """CPU seconds of one cold compile of ``path`` by the tree ``src``."""
    env = {**os.environ, "TILEORCH_CACHE": "0", "PYTHONPATH": src}
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "tileorch.cli.main", "compile", path, "-o", out],
                          env=env, capture_output=True, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{src}: {path} failed:\n{proc.stderr}")
    return r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="the baseline tree's src directory")
    ap.add_argument("--after", required=True, help="the changed tree's src directory")
    ap.add_argument("-n", type=int, default=3, help="compiles per input and tree (the minimum is kept)")
    ap.add_argument("--out", default="build/compile_cpu_ab.json")
    ap.add_argument("inputs", nargs="+")
    args = ap.parse_args(argv)
    trees = {"before": str(Path(args.before).resolve()), "after": str(Path(args.after).resolve())}
    record: dict = {"command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]), "n": args.n,
                    "cpus": os.cpu_count(), "load_at_start": os.getloadavg()[0], "inputs": {}}
    with tempfile.TemporaryDirectory(prefix="tileorch-ab-") as tmp:
        for path in args.inputs:
            name = Path(path).stem
            cpus: dict[str, list[float]] = {k: [] for k in trees}
            outs = {k: os.path.join(tmp, f"{k}.ptx") for k in trees}
            for _ in range(args.n):
                for k, src in trees.items():
                    cpus[k].append(cold_cpu(src, path, outs[k]))
            same = Path(outs["before"]).read_text() == Path(outs["after"]).read_text()
            b, a = min(cpus["before"]), min(cpus["after"])
            record["inputs"][name] = {"before_cpu_s": b, "after_cpu_s": a, "ratio": a / b, "ptx_identical": same,
                                      "runs": cpus}
            print(f"{name:28s} before {b:6.2f} s  after {a:6.2f} s  ratio {a / b:5.2f}  ptx identical: {same}",
                  flush=True)
    ratios = [v["ratio"] for v in record["inputs"].values()]
    record["geomean_ratio"] = statistics.geometric_mean(ratios)
    record["load_at_end"] = os.getloadavg()[0]
    print(f"geomean after/before: {record['geomean_ratio']:.3f} over {len(ratios)} inputs")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    return 0 if all(v["ptx_identical"] for v in record["inputs"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
