"""CPU seconds of the TileAS tier / lowering of a fixed cuTile set, per program and per phase (issue 22, session 45).

Usage::

    python benchmarks/tier_lower_cpu.py [-n 5] [--bytecode DIR] [--out J]             # this tree
    python benchmarks/tier_lower_cpu.py -n 5 --tree BASE/src --tree src [--out J]     # A/B of source trees
    python benchmarks/tier_lower_cpu.py -n 1 --profile P.pstats [--top 40]            # cProfile of one round

The set (:data:`SET`, label -> bytecode name): the tile GEMM, two fused-epilogue GEMMs, the batched GEMM
(``benchmarks/compile_time.py``'s cuTile programs), the chained attention d64 and d128 causal
(``tools/ptx_identity.py``'s chained set) and the SIMT softmax and layernorm.  Their cuTile bytecode is read
from ``DIR`` (default ``/tmp/tileorch-tier-lower``; ``tools/ptx_identity.py save D`` leaves the same files in
``D/bytecode``, also accepted), exported there first when missing (needs cuTile's exporter, no GPU).

Every compile runs in this process: ``tileorch.compile(data, None, cache=False, ptxas=False, isolate=False)``
(the cuda_tile input to PTX: parse, verify, the tier, the lowering, LLVM IR, LLVM code generation; no
ptxas).  One warm-up compile of every program first (imports, op tables, memos), then ``-n`` rounds; the
phases of ``tileorch.timing`` are read on the process's CPU clock (``time.process_time``: one thread).  Per
program, the minimum over the rounds of

* ``lowering``: the phases ``tile-program`` + ``lower`` (the tier's passes, the backend pipeline, the
  lowered module's final verify), what the CI profile's ``lowering (Python passes)`` row counts;
* ``compile``: the whole ``tileorch.compile`` call;
* each top-level phase (``parse``, ``verify``, ``tile-program``, ``lower``, ``translate``, ``codegen``...);
* ``gc``: the cyclic collector's CPU during the compile (``gc.callbacks``; inside the phases above too, in
  whichever phase a collection starts).

Also the set's per-phase and per-pass totals (min over rounds of the round's sum).  JSON on stdout (after a
readable table on stderr) or in ``--out``.  ``--tree SRC`` (twice or more): the same in a fresh process per
tree and round, trees alternated (``A B A B ...``: a loaded machine slows both alike), minima over rounds
(``--per-process K``: K measured rounds in each of those processes after its warm-up).
``--profile P``: one measured round under cProfile (after the warm-up), the stats written to ``P`` and the
top functions by tottime and cumtime printed to stderr.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
import types
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DIR = Path("/tmp/tileorch-tier-lower")

SET = {
    "tile_gemm": "gemm_f16",
    "epilogue_gemm": "gemm_bias_relu_f16",
    "epilogue_gelu_gemm": "linear_gelu_bf16",
    "batched_gemm": "bmm_f16",
    "attention_d64": "chained_attn_d64",
    "attention_d128_causal": "chained_attn_d128_causal",
    "simt_softmax": "softmax_f16",
    "simt_layernorm": "layernorm_bf16",
}
"""label -> bytecode name (the names of ``tools/ptx_identity.py``'s inputs)."""


def bytecode_dir(directory: Path) -> Path:
    """The directory holding ``<name>.tileirbc`` of every program of :data:`SET` (exported into
    ``directory/bytecode`` when neither it nor ``directory`` has them all)."""
    for d in (directory / "bytecode", directory):
        if all((d / f"{n}.tileirbc").is_file() for n in SET.values()):
            return d
    out = directory / "bytecode"
    out.mkdir(parents=True, exist_ok=True)
    sys.path[:0] = [str(ROOT / "tools"), str(ROOT / "benchmarks")]
    import compile_time as ct
    import ptx_identity as pi

    programs = {n: (k, s) for n, (k, s, _) in ct._cutile_programs().items()}
    programs.update(pi.chained_programs())
    for name in SET.values():
        if not (out / f"{name}.tileirbc").is_file():
            kernel, spec = programs[name]
            ct.export_cutile(name, kernel, spec, out)
    return out


def _compile(data: bytes):
    import tileorch

    return tileorch.compile(data, None, cache=False, ptxas=False, isolate=False)


def measure(bc: Path, rounds: int, profile: str | None = None, top: int = 40) -> dict:
    """{"programs": {label: {key: min CPU s}}, "phases": {phase: min of the set's sum}, "passes": {...}}."""
    import tileorch
    import tileorch.timing as timing

    timing.time = types.SimpleNamespace(perf_counter=time.process_time)  # the phases on the CPU clock
    datas = {label: (bc / f"{name}.tileirbc").read_bytes() for label, name in SET.items()}
    for data in datas.values():  # warm: imports, op tables, the verifier's memos
        _compile(data)
    programs: dict[str, dict[str, float]] = {}
    phases: dict[str, float] = {}
    passes: dict[str, float] = {}
    gc_cpu = [0.0, 0.0]  # (the running collection's start, the CPU of the collections so far)

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            gc_cpu[0] = time.process_time()
        else:
            gc_cpu[1] += time.process_time() - gc_cpu[0]

    gc.callbacks.append(on_gc)
    prof = None
    if profile:
        import cProfile

        prof = cProfile.Profile()
    for _ in range(rounds):
        phase_sum: Counter = Counter()
        pass_sum: Counter = Counter()
        for label, data in datas.items():
            if prof is not None:
                prof.enable()
            g0 = gc_cpu[1]
            t0 = time.process_time()
            result = _compile(data)
            cpu = time.process_time() - t0
            if prof is not None:
                prof.disable()
            t = result.timings
            row = {"compile": cpu, "lowering": t.get("tile-program", 0.0) + t.get("lower", 0.0),
                   "gc": gc_cpu[1] - g0}
            for key, s in t.items():
                if "/" not in key and key != "total":
                    row[key] = s
                    phase_sum[key] += s
                elif key.count("/") == 1 and key.split("/")[0] in ("tile-program", "lower"):
                    pass_sum[key] += s
            phase_sum["lowering"] += row["lowering"]
            phase_sum["compile"] += cpu
            phase_sum["gc"] += row["gc"]
            prev = programs.setdefault(label, {})
            for k, s in row.items():
                prev[k] = min(prev.get(k, s), s)
        for k, s in phase_sum.items():
            phases[k] = min(phases.get(k, s), s)
        for k, s in pass_sum.items():
            passes[k] = min(passes.get(k, s), s)
    gc.callbacks.remove(on_gc)
    if prof is not None:
        import pstats

        prof.dump_stats(profile)
        for key in ("tottime", "cumulative"):
            print(f"--- top {top} by {key} ({rounds} round(s) of the set) ---", file=sys.stderr)
            pstats.Stats(prof, stream=sys.stderr).sort_stats(key).print_stats(top)
    return {"programs": programs, "phases": phases, "passes": passes,
            "tree": str(Path(tileorch.__file__).parents[1])}


def _merge(prev: dict, r: dict) -> None:
    for label, row in r["programs"].items():
        p = prev["programs"].setdefault(label, {})
        for k, s in row.items():
            p[k] = min(p.get(k, s), s)
    for part in ("phases", "passes"):
        for k, s in r[part].items():
            prev[part][k] = min(prev[part].get(k, s), s)


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _table(results: dict) -> None:
    trees = list(results)
    first = results[trees[0]]
    err = sys.stderr
    print("per program, lowering / compile CPU s (min over rounds)" + ("; trees: " + ", ".join(trees)
                                                                      if len(trees) > 1 else ""), file=err)
    for label in SET:
        cells = []
        for tree in trees:
            row = results[tree]["programs"].get(label, {})
            cells.append(f"{row.get('lowering', float('nan')):.4f} / {row.get('compile', float('nan')):.4f}")
        print(f"  {label:24s} " + "   ".join(cells), file=err)
    print("set totals per phase (CPU s):", file=err)
    for k in sorted(first["phases"], key=lambda k: -first["phases"][k]):
        print(f"  {k:24s} " + "   ".join(f"{results[t]['phases'].get(k, 0.0):.4f}" for t in trees), file=err)
    print("set totals per pass, largest 25 (CPU s):", file=err)
    for k in sorted(first["passes"], key=lambda k: -first["passes"][k])[:25]:
        print(f"  {k:56s} " + "   ".join(f"{results[t]['passes'].get(k, 0.0):.4f}" for t in trees), file=err)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bytecode", type=Path, default=DEFAULT_DIR, help="directory of the programs' bytecode")
    ap.add_argument("-n", type=int, default=5, help="measured rounds (per tree with --tree)")
    ap.add_argument("--tree", action="append", default=[], help="a source tree (its src/ directory) to A/B")
    ap.add_argument("--per-process", type=int, default=1,
                    help="with --tree: measured rounds in each fresh process (the collector's older generations "
                         "fill over several rounds, as in a test worker)")
    ap.add_argument("--out", help="write the JSON here instead of stdout")
    ap.add_argument("--profile", help="cProfile the measured rounds into this pstats file")
    ap.add_argument("--top", type=int, default=40, help="functions printed per sort with --profile")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    bc = bytecode_dir(args.bytecode)
    if args.child:
        print(json.dumps(measure(bc, args.n)))
        return 0
    load_start = _load()
    if not args.tree:
        results = {"(this tree)": measure(bc, args.n, args.profile, args.top)}
    else:
        results = {}
        for _ in range(args.n):
            for tree in args.tree:
                env = {**os.environ, "PYTHONPATH": tree}
                out = subprocess.run([sys.executable, __file__, "--child", "-n", str(args.per_process),
                                      "--bytecode", str(bc)],
                                     env=env, capture_output=True, text=True, check=True).stdout
                r = json.loads(out.strip().splitlines()[-1])
                if tree in results:
                    _merge(results[tree], r)
                else:
                    results[tree] = r
    _table(results)
    doc = {"rounds": args.n, "set": SET, "load_start": load_start, "load_end": _load(), "results": results}
    text = json.dumps(doc, indent=1) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
