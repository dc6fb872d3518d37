"""CPU time of `tileorch check` on the GEMM builder's configurations (issue 11, item 8: 5 s budget).

For each (stages, cluster, schedule, tile_n) the builder's IR is written to a temporary file,
extracted and checked for every trip-count instance; the CPU seconds (process time) and the
verdict are printed and recorded in ``benchmarks/results/checker_gemm.json``.  Timing lives here,
not in the test suite (tests/unit/test_checker_gemm.py checks the verdicts).

    python benchmarks/checker_gemm.py [--configs 2x1,3x1,...] [--max-seconds 60]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "checker_gemm.json"
DEFAULT = ["2x1", "3x1", "4x1", "2x2", "3x2", "5x1n128", "6x1n128"]
SCHEDULES = ("persistent", "streamk", "dp")


def _parse(spec: str) -> tuple[int, int, int]:
    """'SxC[nN]' -> (stages, cluster_m, tile_n)."""
    base, _, n = spec.partition("n")
    stages, cluster = (int(x) for x in base.split("x"))
    return stages, cluster, int(n or 256)


def _one(args, queue) -> None:
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import load
    from tileorch.kernels.gemm.config import GemmConfig
    from tileorch.kernels.gemm.ir import gemm_kernel_ir

    stages, cluster, schedule, tile_n = args
    cfg = GemmConfig(stages=stages, cluster_m=cluster, schedule=schedule, tile_n=tile_n).check()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{cfg.name}.mlir"
        path.write_text(gemm_kernel_ir(cfg))
        start = time.process_time()
        protocols, errors = load(str(path))
        results = [check(p) for p in protocols]
        cpu = time.process_time() - start
    ok = not errors and all(r.ok for r in results)
    states = sum(getattr(r, "states", 0) or 0 for r in results)
    queue.put({"ok": ok, "cpu_s": round(cpu, 3), "states": states, "errors": errors[:1]})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default=",".join(DEFAULT))
    ap.add_argument("--schedules", default=",".join(SCHEDULES))
    ap.add_argument("--max-seconds", type=float, default=60.0, help="wall limit per configuration")
    ap.add_argument("--budget", type=float, default=5.0)
    ns = ap.parse_args(argv)
    rows = []
    print(f"{'configuration':34} {'verdict':9} {'CPU s':>8}  budget {ns.budget:g} s")
    for spec in ns.configs.split(","):
        stages, cluster, tile_n = _parse(spec)
        for schedule in ns.schedules.split(","):
            queue: mp.Queue = mp.Queue()
            proc = mp.Process(target=_one, args=((stages, cluster, schedule, tile_n), queue))
            proc.start()
            proc.join(ns.max_seconds)
            if proc.is_alive():
                proc.kill()
                row = {"ok": None, "cpu_s": None, "timeout_s": ns.max_seconds}
            else:
                row = queue.get() if not queue.empty() else {"ok": None, "cpu_s": None, "crashed": True}
            row.update(stages=stages, cluster_m=cluster, schedule=schedule, tile_n=tile_n)
            rows.append(row)
            name = f"{stages} stages {cluster}x1 {schedule} n{tile_n}"
            verdict = {True: "OK", False: "VIOLATION", None: "timeout"}[row["ok"]]
            cpu = "-" if row["cpu_s"] is None else f"{row['cpu_s']:.2f}"
            within = "" if row["cpu_s"] is None else ("  within" if row["cpu_s"] <= ns.budget else "  OVER")
            print(f"{name:34} {verdict:9} {cpu:>8}{within}", flush=True)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps({"budget_s": ns.budget, "python": sys.version.split()[0],
                                   "rows": rows}, indent=1) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
