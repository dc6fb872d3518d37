"""Lowering CPU of the program set and the GEMM's IR -> cubin phases, A/B of source trees (issue 22, session 38).

Usage::

    git -C /work/main archive main src | tar -x -C /tmp/base      # the tree to compare against
    python benchmarks/lower_cpu_ab38.py --tree /tmp/base/src --tree src -n 5 [--json build/lower_cpu_ab38.json]

For each round and tree (alternated, ``A B A B ...``: a busy machine slows both alike) a fresh process
with ``PYTHONPATH`` = the tree:

* compiles the 25 programs of :data:`lower_cpu_sample.SAMPLE` (chained attention / MLP programs of the
  tier, GEMMs with a dot in the epilogue, SIMT memory-bound programs; ``tileorch.compile(...,
  cache=False, ptxas=False, isolate=False)``) once to warm up, then once measured:
  :func:`lower_cpu_sample.measure` (``lowering`` = the phases ``tile-program`` + ``lower``, final
  verify included, on the process's CPU clock; per pass);
* then, in another fresh process, compiles the GEMM ``tileorch gemm 4096 4096 4096 --compile`` builds
  (the API's default configuration, bf16, 132 SMs; ``compile_gemm(cfg, use_cache=False)``) once,
  cold (a second compile in a process reuses what the first built); its phases ``tier``, ``lower``,
  ``translate`` and ``codegen`` on the process's CPU clock, and ``children_cpu``: the CPU of its child
  processes (the forked LLVM code generation, ptxas).  ``ir_to_cubin_cpu`` = lower + translate +
  children_cpu.

Printed and written (``--json``): per tree the minimum over its rounds of each category, GEMM phase and
pass, and the change against the first tree.  The machine's load average at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
GEMM_PHASES = ("tier", "lower", "translate", "codegen")


def _gemm() -> dict[str, float]:
    """{phase: CPU seconds} of this process's first compile of the 4096^3 bf16 GEMM (cold: what
    ``tileorch gemm 4096 4096 4096 --compile`` does; a second compile in the process reuses what the
    first built)."""
    from tileorch.launchers.gemm import default_config
    from tileorch.launchers.gemm_host import compile_gemm

    cfg = default_config(4096, 4096, 4096, "bf16", "bf16", "k", "auto", 132)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = compile_gemm(cfg, use_cache=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = {k: r.seconds[k] for k in GEMM_PHASES if k in r.seconds}
    out["children_cpu"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    out["ir_to_cubin_cpu"] = out.get("lower", 0.0) + out.get("translate", 0.0) + out["children_cpu"]
    return out


def child(bc: Path, rounds: int, what: str) -> dict:
    import tileorch.timing as timing

    timing.time = types.SimpleNamespace(perf_counter=time.process_time)  # every phase on the CPU clock
    if what == "gemm":
        return {"categories": {}, "passes": {}, "gemm": _gemm()}
    sys.path.insert(0, str(HERE))
    import lower_cpu_sample as sample

    out = sample.measure(bc, rounds)
    out["gemm"] = {}
    return out


def _merge(prev: dict, r: dict) -> None:
    for part in ("categories", "passes", "gemm"):
        for k, s in r[part].items():
            prev[part][k] = min(prev[part].get(k, s), s)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bytecode", type=Path, default=Path("/tmp/tileorch-lower-sample"),
                    help="directory of the programs' bytecode (exported there when missing)")
    ap.add_argument("-n", type=int, default=5, help="rounds per tree")
    ap.add_argument("--tree", action="append", default=[], help="a source tree (its src/ directory); twice or more")
    ap.add_argument("--json", default="build/lower_cpu_ab38.json")
    ap.add_argument("--child", choices=("set", "gemm"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import lower_cpu_sample as sample

    bc = sample.bytecode_dir(args.bytecode)
    if args.child:
        print(json.dumps(child(bc, args.n, args.child)))
        return 0
    trees = [str(Path(t).resolve()) for t in args.tree] or [str(HERE.parent / "src")]
    load_start = os.getloadavg()
    results: dict[str, dict] = {}
    for _ in range(args.n):
        for tree in trees:
            env = {**os.environ, "PYTHONPATH": tree, "TILEORCH_CACHE": "0"}
            for what in ("set", "gemm"):
                proc = subprocess.run([sys.executable, __file__, "--child", what, "-n", "1", "--bytecode", str(bc)],
                                      env=env, capture_output=True, text=True)
                if proc.returncode != 0:
                    raise SystemExit(f"{tree}: child failed:\n{proc.stderr[-3000:]}")
                r = json.loads(proc.stdout.strip().splitlines()[-1])
                if tree in results:
                    _merge(results[tree], r)
                else:
                    results[tree] = r
    first = results[trees[0]]
    print(f"load average at start {load_start[0]:.2f}, at the end {os.getloadavg()[0]:.2f}; "
          f"{len(sample.SAMPLE)} programs, min of {args.n} rounds per tree")
    summary = {}
    for tree in trees:
        r = results[tree]
        cat, gemm = r["categories"], r["gemm"]
        row = {"lowering_s": cat["lowering"], "final_verify_s": cat["final verify"], "compile_s": cat["compile"],
               "gc_s": cat["gc"], "gemm": gemm}
        if tree != trees[0]:
            row["lowering_change"] = cat["lowering"] / first["categories"]["lowering"] - 1
            row["gemm_ir_to_cubin_cpu_change"] = gemm["ir_to_cubin_cpu"] / first["gemm"]["ir_to_cubin_cpu"] - 1
        summary[tree] = row
        change = (f"  (lowering {100 * row['lowering_change']:+.1f}%, GEMM IR->cubin CPU "
                  f"{100 * row['gemm_ir_to_cubin_cpu_change']:+.1f}%)" if "lowering_change" in row else "")
        print(f"{tree}: set lowering {cat['lowering']:.3f} s (final verify {cat['final verify']:.3f}), compile "
              f"{cat['compile']:.3f} s; GEMM " + " ".join(f"{k} {v:.3f}" for k, v in gemm.items()) + change)
    print("per pass (CPU s, min over rounds), one column per tree:")
    for key, s in sorted(first["passes"].items(), key=lambda kv: -kv[1]):
        print("  " + "  ".join(f"{results[t]['passes'].get(key, 0.0):7.3f}" for t in trees) + f"  {key}")
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]), "rounds": args.n,
                                "cpus": os.cpu_count(), "load_start": load_start, "load_end": os.getloadavg(),
                                "sample": list(sample.SAMPLE), "summary": summary, "results": results},
                               indent=1) + "\n")
    print(f"JSON: {path.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
