"""Compile time of every program of the user sweeps (``tileorch.testing.user_programs`` and
``user_programs2``): the measurement that tests/unit/test_user_sweep.py asserted as ``took < 60 s``
until session 19 (a timed test; performance is measured here, never in CI).

Usage::

    python benchmarks/user_sweep_compile.py [--only NAME ...] [--slow-s 60] [--out FILE.json]

Each program (the sweep tests' compile: cuTile export, then ``compile_program(data, name,
arch="sm_90a", ptxas=<ptxas found>)``, on-disk cache off) is compiled in this process, one after
the other.  Printed and recorded per program: its path (``simt``/``gemm``/``chained``), the wall and
CPU seconds of the compile (user + system of this process and of the children it waited for: the
forked LLVM code generation, ptxas), and the machine's load average at the start.  Programs whose compile
took more than ``--slow-s`` CPU seconds (default 60, the old assertion's bound, which was on wall
seconds: a SIMT dot of scalar FMAs must take seconds, not minutes; CPU seconds because on a shared
machine the wall time is the load's) are listed at the end and make the exit status 1.  The programs whose path is
``error`` (compile errors by design) are left out.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=None, help="program names (default: every program)")
    parser.add_argument("--slow-s", type=float, default=60.0, help="report compiles over this many CPU seconds")
    parser.add_argument("--out", default=None, help="write the JSON record here")
    args = parser.parse_args(argv)

    os.environ["TILEORCH_CACHE"] = "0"
    from tileorch.backend.ptxas import ptxas_available
    from tileorch.driver import compile_program
    from tileorch.testing import user_programs, user_programs2
    from tileorch.testing.export import cutile_bytecode

    programs = {**user_programs.PROGRAMS, **user_programs2.PROGRAMS}
    names = sorted(n for n, p in programs.items() if p.path != "error" and (args.only is None or n in args.only))
    ptxas = ptxas_available()
    record = {"load_average_start": os.getloadavg(), "ptxas": ptxas, "slow_s": args.slow_s, "programs": {}}
    for name in names:
        p = programs[name]
        data = cutile_bytecode(p.kernel, p.spec)
        wall, cpu = time.perf_counter(), _cpu()
        prog = compile_program(data, name, arch="sm_90a", ptxas=ptxas)
        wall, cpu = time.perf_counter() - wall, _cpu() - cpu
        record["programs"][name] = {"path": prog.kind, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3)}
        print(f"{name:40s} {prog.kind:8s} {wall:7.2f} s wall {cpu:7.2f} s CPU", flush=True)
    record["load_average_end"] = os.getloadavg()
    slow = sorted(n for n, r in record["programs"].items() if r["cpu_s"] > args.slow_s)
    record["slow"] = slow
    total = sum(r["cpu_s"] for r in record["programs"].values())
    print(f"{len(names)} programs, {total:.1f} CPU s; load {record['load_average_start'][0]:.1f} -> "
          f"{record['load_average_end'][0]:.1f}; over {args.slow_s:g} s: {', '.join(slow) or 'none'}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(record, f, indent=1)
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
