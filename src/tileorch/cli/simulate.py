"""``tileorch simulate``: run a kernel's orchestration on the CPU under a seeded random
scheduler (one task per agent and per in-flight TMA copy); report hangs with a step-by-step
trace and, for kernels that move data, the functional result."""

from __future__ import annotations

import argparse
import sys

from tileorch.analysis.counterexample import format_text, write_chrome_trace
from tileorch.analysis.explore import instances
from tileorch.analysis.simulate import describe, simulate
from tileorch.cli.check import load_protocols


def register(subparsers) -> None:
    p = subparsers.add_parser("simulate", help="run a kernel's orchestration on the CPU",
                              description=__doc__)
    p.add_argument("file", metavar="FILE.mlir")
    p.add_argument("--kernel", help="simulate only this kernel (func.func name)")
    p.add_argument("--seed", type=int, default=0, help="scheduler seed (default 0)")
    p.add_argument("--runs", type=int, default=1, help="runs with seeds S, S+1, ... (default 1)")
    p.add_argument("--iterations", type=int, metavar="N",
                   help="run every loop whose trip count is not a constant (mainloop, "
                        "scheduler loop) N times (default: the largest count the checker uses)")
    p.add_argument("--trace", metavar="FILE.json", help="write the last run as a Perfetto trace")
    p.set_defaults(func=run)


MAX_ITERATIONS = 4096
"""The largest ``--iterations``.  A run's memory grows with the square of its length (measured on
examples/ws_stream_copy.mlir: 3000 tiles 116 MB, 6000 305 MB, 12000 1 GB; 100000 was killed for
memory at 24 GB), so the cap keeps one run near 150 MB."""


def trip_values(proto, iterations: int | None) -> dict[str, int]:
    """The trip counts of one simulation: N for every parametric loop, else the largest
    instance the checker explores."""
    if iterations is not None:
        return {name: iterations for name, _ in proto.params}
    return instances(proto)[-1] if proto.params else {}


def run(args: argparse.Namespace) -> int:
    if args.iterations is not None and args.iterations < 0:
        print("tileorch simulate: error: --iterations must not be negative", file=sys.stderr)
        return 2
    if args.iterations is not None and args.iterations > MAX_ITERATIONS:
        # a run's memory grows with the square of its length: 10**5 was killed at 24 GB
        print(f"tileorch simulate: error: --iterations must be at most {MAX_ITERATIONS}, got {args.iterations} "
              "(a run's memory grows with the square of its length; `tileorch check` shows that small counts "
              "cover all larger ones)", file=sys.stderr)
        return 2
    if args.runs < 1:
        print(f"tileorch simulate: error: --runs must be at least 1, got {args.runs}", file=sys.stderr)
        return 2
    protocols = load_protocols(args.file, args.kernel, "simulate")
    if isinstance(protocols, int):
        return protocols
    failed = 0
    for proto in protocols:
        values = trip_values(proto, args.iterations)
        for seed in range(args.seed, args.seed + max(1, args.runs)):
            sim = simulate(proto, values, seed)
            print(f"seed {seed}: {describe(sim)}")
            if not sim.result.ok:
                print(format_text(sim.result))
            if not sim.functional_ok:
                failed += 1
            if args.trace:
                write_chrome_trace(sim.result, args.trace)
    if args.trace:
        print(f"trace written to {args.trace}")
    return 1 if failed else 0
