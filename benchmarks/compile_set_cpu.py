"""CPU seconds of a fixed set of compiles in one warm process (the test suite's situation).

Usage::

    PYTHONPATH=TREE/src python benchmarks/compile_set_cpu.py [-n 3] [--profile OUT.prof] [--json OUT] INPUT...

Each input (``.mlir`` or cuTile ``.tileirbc``) is compiled once to warm the process (imports,
op-definition tables, the verifier's memos), then ``-n`` rounds over the whole set; each
compile is in-process (``isolate=False``: no forked code generation, so the process's own CPU
time is the compile's), without ptxas and without the cache.  Printed per input: the smallest
CPU seconds of the rounds, and the sum of those minima.  A/B two trees by running this
alternately with each tree on ``PYTHONPATH`` (a busy machine then slows both alike).
``--profile`` writes a cProfile of the measured rounds (the ratios, not the times: cProfile
slows Python-heavy code about 2x).  ``--passes`` also prints the CPU milliseconds of each phase and
pass (the compile's :mod:`tileorch.timing` report, its clock made the process's CPU clock for the
run: each entry the smallest of the rounds; entries below ``--passes-min`` ms in every input left
out), one column per input: where a compile's CPU goes, pass by pass (``tileorch compile
--timings`` reports wall seconds, which a shared machine inflates).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def _source(path: Path) -> object:
    return path.read_bytes() if path.suffix == ".tileirbc" else str(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=3, help="measured rounds over the set (the minimum per input is kept)")
    ap.add_argument("--profile", help="write a cProfile of the measured rounds here")
    ap.add_argument("--json", help="write {input: min CPU s} here")
    ap.add_argument("--passes", action="store_true", help="print the CPU ms of each phase and pass per input")
    ap.add_argument("--passes-min", type=float, default=2.0, help="--passes: leave out entries below this many ms")
    ap.add_argument("inputs", nargs="+", type=Path)
    args = ap.parse_args(argv)

    import tileorch

    phases: dict[str, dict[str, float]] = {}
    if args.passes:  # the timing report's clock: this process's CPU time (the compiles run in process)
        import types

        from tileorch import timing

        timing.time = types.SimpleNamespace(perf_counter=time.process_time)

    def one(path: Path) -> float:
        t0 = time.process_time()
        kernel = tileorch.compile(_source(path), None, cache=False, ptxas=False, isolate=False)
        s = time.process_time() - t0
        if args.passes:
            mine = phases.setdefault(path.name, {})
            for key, v in kernel.timings.items():
                mine[key] = min(mine.get(key, v), v)
        return s

    for path in args.inputs:  # warm-up
        one(path)
    phases.clear()
    prof = None
    if args.profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    best: dict[str, float] = {}
    for _ in range(args.n):
        for path in args.inputs:
            s = one(path)
            best[path.name] = min(best.get(path.name, s), s)
    if prof is not None:
        prof.disable()
        prof.dump_stats(args.profile)
    for name, s in best.items():
        print(f"{s:8.3f}  {name}")
    print(f"{sum(best.values()):8.3f}  total ({tileorch.__file__})")
    if args.passes:
        _print_phases(phases, args.passes_min)
    if args.json:
        Path(args.json).write_text(json.dumps(best, indent=1) + "\n")
    return 0


def _print_phases(phases: dict[str, dict[str, float]], floor_ms: float) -> None:
    names = list(phases)
    keys: list[str] = []
    for entries in phases.values():
        keys += [k for k in entries if k not in keys]
    print(f"\n{'CPU ms (min of the rounds)':60s}" + "".join(f"{n.split('.')[0][:12]:>13s}" for n in names))
    for key in keys:
        values = [phases[n].get(key) for n in names]
        if max(v or 0.0 for v in values) * 1000 < floor_ms:
            continue
        print(f"{key[:60]:60s}" + "".join(f"{v * 1000:13.1f}" if v is not None else f"{'-':>13s}" for v in values))


if __name__ == "__main__":
    sys.exit(main())
