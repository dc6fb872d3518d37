"""Where a cold GEMM compile's CPU goes, and what is left once nothing is imported (issue 22: IR -> cubin < 0.5 s).

Usage::

    PYTHONPATH=SRC python benchmarks/gemm_compile_floor.py [--mnk 4096x4096x4096] [--runs 3] [--out F.json]

One fresh process (run it as a fresh process: its first compile is the cold one) compiles the
configuration the API would choose (``tileorch.launchers.gemm.default_config``, 132 SMs) with
``compile_gemm(cfg, use_cache=False)`` (what ``tileorch gemm M N K --compile`` runs) ``--runs``
times, with ``tileorch.timing``'s clock read as this process's CPU (``time.process_time``) instead
of the wall: each phase (``tier``, ``verify``, ``lower``, ``translate``, ``codegen``, ``ptxas``)
is then this process's own CPU in it, whatever the machine's load (``codegen``: the verification
this process does while the code generation child runs; ``ptxas``: waiting, ~0).  Beside them,
per run, the CPU of the children (the code generation child and ptxas, from ``RUSAGE_CHILDREN``),
and once, ptxas alone on the run's PTX.

Printed: the interpreter's start and the imports before the first compile (``startup``), the first
(cold) compile, the later ones (warm: the same work with every module imported and every lazy
table built), so that ``cold - warm`` is what importing and first use cost inside the compile, and
``warm self + children`` is the floor a compile in this design has once nothing is imported.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class _CpuClock:
    """``time`` for :mod:`tileorch.timing` with ``perf_counter`` reading this process's CPU."""

    perf_counter = staticmethod(time.process_time)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mnk", default="4096x4096x4096")
    ap.add_argument("--dtype", default="bf16")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=None, help="JSON record")
    args = ap.parse_args()
    os.environ["TILEORCH_CACHE"] = "0"  # nothing read from or written to the cache

    from tileorch import timing
    from tileorch.launchers.gemm import default_config
    from tileorch.launchers.gemm_host import compile_gemm

    timing.time = _CpuClock  # the phases in this process's CPU seconds
    m, n, k = (int(v) for v in args.mnk.split("x"))
    cfg = default_config(m, n, k, args.dtype, args.dtype, "k", "auto", 132)
    startup = time.process_time()  # the interpreter and the imports above (not the compiler's: compile_gemm's)
    runs = []
    for _ in range(args.runs):
        c0, s0 = _children_cpu(), time.process_time()
        result = compile_gemm(cfg, use_cache=False)
        runs.append({"self": time.process_time() - s0, "children": _children_cpu() - c0,
                     "phases": {p: v for p, v in result.seconds.items() if "/" not in p}})
    ptxas_alone = _ptxas_cpu(cfg)
    warm = runs[1:] or runs
    best = min(warm, key=lambda r: r["self"] + r["children"])
    record = {
        "config": cfg.name, "load": os.getloadavg(), "startup_cpu": startup,
        "runs": runs, "ptxas_alone_cpu": ptxas_alone,
        "cold_total_cpu": startup + runs[0]["self"] + runs[0]["children"],
        "warm_self_cpu": best["self"], "warm_children_cpu": best["children"],
        "first_use_cpu": runs[0]["self"] - best["self"],
    }
    print(f"{cfg.name} (load {record['load'][0]:.1f}); CPU seconds")
    print(f"  startup (interpreter, the API's imports)  {startup:6.3f}")
    for i, r in enumerate(runs):
        phases = ", ".join(f"{p} {v:.3f}" for p, v in r["phases"].items())
        print(f"  compile {i} {'cold' if i == 0 else 'warm'}: self {r['self']:.3f} children {r['children']:.3f}  ({phases})")
    print(f"  cold total {record['cold_total_cpu']:.3f} = startup + first compile; of it importing and first use "
          f"inside the compile {record['first_use_cpu']:.3f}")
    print(f"  floor of this design with everything imported: self {best['self']:.3f} + children "
          f"{best['children']:.3f} (ptxas alone {ptxas_alone:.3f}, LLVM child ~{best['children'] - ptxas_alone:.3f}) "
          f"= {best['self'] + best['children']:.3f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(record, f, indent=1)


def _ptxas_cpu(cfg) -> float:
    """CPU seconds of the best of three ptxas runs on the configuration's PTX (as the backend runs it)."""
    from tileorch.backend.ptxas import run_ptxas
    from tileorch.driver import compile_module
    from tileorch.launchers.gemm_program import lower_gemm

    ptx = compile_module(lower_gemm(cfg), ptxas=False).ptx
    best = float("inf")
    for _ in range(3):
        c0 = _children_cpu()
        run_ptxas(ptx, "sm_90a")
        best = min(best, _children_cpu() - c0)
    return best


if __name__ == "__main__":
    main()
