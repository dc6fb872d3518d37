"""The summary of ``benchmarks/session27_rowred.sh``: each ``bench_<name>/memory_bound.json`` under the
directory given (``full``, ``ex2``, ``runs``, or the names given after it: session28_rowred.sh's), every
case's TB/s, fraction of the same process's copy rate, ratio to torch and correctness, one line each,
sorted by case.

    python benchmarks/session27_rowred_summary.py DIR [NAME ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(root: Path, names=("full", "ex2", "runs")) -> None:
    rows = []
    for name in names:
        p = root / f"bench_{name}" / "memory_bound.json"
        if not p.exists():
            print(f"[{name}] no result")
            continue
        d = json.loads(p.read_text())
        print(f"[{name}] {d['device']}, copy {d['copy_tbs']:.2f} TB/s")
        rows += [(name, c) for c in d["cases"]]
    for name, c in sorted(rows, key=lambda r: r[1]["case"]):
        tbs = (f"{c['tileorch_tbs']:.2f} TB/s ({c['vs_copy']:.2f} of copy, {c['vs_torch']:.2f}x torch)"
               if "tileorch_tbs" in c else "-")
        print(f"  {name:7s} {c['case']:56s} {tbs} correct={c.get('correct')}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:] or ("full", "ex2", "runs"))
