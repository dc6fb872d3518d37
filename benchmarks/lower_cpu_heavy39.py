"""Lowering CPU of five heavy compiles of the test suite, A/B of source trees (issue 22, session 39).

Usage::

    git -C /work/main archive main src | tar -x -C /tmp/base      # the tree to compare against
    python benchmarks/lower_cpu_heavy39.py --bytecode DIR --tree /tmp/base/src --tree src -n 5 [--json OUT]

``DIR`` holds ``<name>.tileirbc`` of the programs (``tools/ptx_identity.py save DIR`` leaves them in
``DIR/bytecode``, also accepted).  The compiles (:data:`HEAVY`): the chained attention kernels the suite
compiles most and largest (d256; d128 causal with ping-pong; the soft-capped d64 with overlap; the 128-row
kernel of d64 with 128-key tiles) and the largest GEMM with a dot in the epilogue.  Per round and tree
(alternated) a fresh process with ``PYTHONPATH`` = the tree compiles each once to warm up, then once
measured (``tileorch.compile(..., cache=False, ptxas=False, isolate=False)``, its environment set for the
compile): ``lowering`` = the phases ``tile-program`` + ``lower`` on the process's CPU clock, and per pass.
Printed: per tree and program the minimum over the rounds, the change against the first tree, and the
per-pass table (sum over the programs)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path

HEAVY = (("chained_attn_d256", {"TILEORCH_ATTN_OVERLAP": "0"}),
         ("chained_attn_d128_causal", {"TILEORCH_ATTN_PINGPONG": "1", "TILEORCH_ATTN_OVERLAP": "0"}),
         ("chained_natural_softcap_d64", {"TILEORCH_ATTN_OVERLAP": "1"}),
         ("chained_attn_d64_tn128", {"TILEORCH_ATTN_OVERLAP": "1", "TILEORCH_ATTN_ROW_GROUPS": "0"}),
         ("epidot_mlp_nn_linear_float16", {}))
"""(program, environment of its compile): names and environments of ``tools/ptx_identity.py``."""


def _bytecode(directory: Path) -> Path:
    for d in (directory / "bytecode", directory):
        if all((d / f"{n}.tileirbc").is_file() for n, _ in HEAVY):
            return d
    raise SystemExit(f"no bytecode of {', '.join(n for n, _ in HEAVY)} in {directory}: run "
                     f"tools/ptx_identity.py save {directory}")


def child(bc: Path) -> dict:
    import tileorch
    import tileorch.timing as timing

    timing.time = types.SimpleNamespace(perf_counter=time.process_time)  # every phase on the CPU clock
    out: dict = {"lowering": {}, "passes": {}}
    for measured in (False, True):
        for name, env in HEAVY:
            saved = {k: os.environ.get(k) for k in env}
            os.environ.update(env)
            try:
                r = tileorch.compile((bc / f"{name}.tileirbc").read_bytes(), None, cache=False, ptxas=False,
                                     isolate=False)
            finally:
                for k, v in saved.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
            if measured:
                t = r.timings
                out["lowering"][name] = t.get("tile-program", 0.0) + t.get("lower", 0.0)
                for key, s in t.items():
                    if key.count("/") == 1 and key.split("/")[0] in ("tile-program", "lower"):
                        out["passes"][key] = out["passes"].get(key, 0.0) + s
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bytecode", type=Path, required=True)
    ap.add_argument("-n", type=int, default=5, help="rounds per tree")
    ap.add_argument("--tree", action="append", default=[], help="a source tree (its src/ directory); twice or more")
    ap.add_argument("--json", default="build/lower_cpu_heavy39.json")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    bc = _bytecode(args.bytecode)
    if args.child:
        print(json.dumps(child(bc)))
        return 0
    trees = [str(Path(t).resolve()) for t in args.tree]
    load_start = os.getloadavg()
    best: dict[str, dict] = {}
    for _ in range(args.n):
        for tree in trees:
            env = {**os.environ, "PYTHONPATH": tree, "TILEORCH_CACHE": "0"}
            proc = subprocess.run([sys.executable, __file__, "--child", "--bytecode", str(bc)], env=env,
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise SystemExit(f"{tree}: child failed:\n{proc.stderr[-3000:]}")
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            b = best.setdefault(tree, {"lowering": {}, "passes": {}})
            for part in ("lowering", "passes"):
                for k, s in r[part].items():
                    b[part][k] = min(b[part].get(k, s), s)
    print(f"load average at start {load_start[0]:.2f}, at the end {os.getloadavg()[0]:.2f}; min of {args.n} rounds")
    first = best[trees[0]]
    for name, env in HEAVY:
        row = "  ".join(f"{best[t]['lowering'][name]:7.3f}" for t in trees)
        change = best[trees[-1]]["lowering"][name] / first["lowering"][name] - 1
        print(f"  {row}  ({100 * change:+.1f}%)  {name} {' '.join(f'{k}={v}' for k, v in env.items())}")
    totals = [sum(best[t]["lowering"].values()) for t in trees]
    print("  " + "  ".join(f"{s:7.3f}" for s in totals) + f"  ({100 * (totals[-1] / totals[0] - 1):+.1f}%)  total")
    print("per pass (CPU s, sum over the programs, min over rounds), one column per tree:")
    for key, s in sorted(first["passes"].items(), key=lambda kv: -kv[1]):
        if s >= 0.005:
            print("  " + "  ".join(f"{best[t]['passes'].get(key, 0.0):7.3f}" for t in trees) + f"  {key}")
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]), "rounds": args.n,
                                "load_start": load_start, "load_end": os.getloadavg(), "heavy": HEAVY,
                                "results": best}, indent=1) + "\n")
    print(f"JSON: {path.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
