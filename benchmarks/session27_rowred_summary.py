"""The summary of ``benchmarks/session27_rowred.sh``: each ``bench_<name>/memory_bound.json`` under the
directory given (``full``, ``ex2``, ``runs``), every case's TB/s, fraction of the same process's copy rate,
ratio to torch and correctness, one line each, sorted by case.

    python benchmarks/session27_rowred_summary.py DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(root: Path) -> None:
    rows = []
    for name in ("full", "ex2", "runs"):
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
        print(f"  {name:5s} {c['case']:56s} {tbs} correct={c.get('correct')}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
