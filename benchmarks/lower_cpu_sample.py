"""CPU seconds of the lowering of a fixed program set, where they go, and an A/B of source trees (issue 22).

Usage::

    python benchmarks/lower_cpu_sample.py [--bytecode DIR] [-n 5] [--json OUT] [--tree SRC --tree SRC ...]

The set (:data:`SAMPLE`): what the test suite compiles most, by kind: chained two-dot kernels (the
attention programs of ``tileorch.testing.attention_programs``: head dims, causal, bf16, grouped
heads, K transposed, the MLP chains), GEMMs with a dot in the epilogue (``epidot_*``) and SIMT-path
programs (softmax, layernorm, rmsnorm, row/column sums, argmax, cumsum of the ``memory_programs``
zoo; user-sweep programs).  Their cuTile bytecode is taken from ``DIR`` (default
``/tmp/tileorch-lower-sample``), exported there first when missing (the programs and names of
``tools/ptx_identity.py``: ``ptx_identity.py save DIR`` leaves the same files in ``DIR/bytecode``,
also accepted).

Each compile runs in this process (``tileorch.compile(..., cache=False, ptxas=False,
isolate=False)``: no ptxas, LLVM code generation in process) after one warm-up compile of every
program; ``tileorch.timing``'s phases are read on the process's CPU clock (``time.process_time``
in place of the wall clock: one thread, so a phase's CPU), and the cyclic collector's time is
summed from ``gc.callbacks``.  Printed per category, the smallest sum over the set of the ``-n``
rounds (a round: every program once):

* ``lowering``: the phases ``tile-program`` (the tile program's passes) and ``lower`` (the backend
  pipeline, including its last ``verify`` of the lowered module, as the suite's ``lowering (Python
  passes)`` row counts it);
* ``passes``: ``lowering`` less that final verify; ``final verify``: that verify;
* ``gc``: the collector (mostly the young collection when ``gc_deferred`` ends: the compile's IR);
* ``compile``: the whole ``tileorch.compile`` (adds parse, the input's verify, LLVM IR, codegen);
* then each pass (``tile-program/...``, ``lower/...``), largest first.

``--tree SRC`` (twice or more): the same measurement in a fresh process per tree and round, the
trees alternated (``A B A B ...``: a busy machine slows both alike), each process one measured
round after its warm-up; printed per tree, the minimum of its rounds, and the difference to the
first tree.  The machine's load average is printed at the start and the end.  ``--json``: the
per-tree minima and the per-pass table."""

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
DEFAULT_DIR = Path("/tmp/tileorch-lower-sample")

SAMPLE = (
    # chained two-dot kernels (attention, MLP chains)
    "chained_attn_d64", "chained_attn_d128_causal", "chained_attn_d128_bf16_causal", "chained_attn_d32_tn32",
    "chained_branchy_gqa_d64", "chained_kt_d64", "chained_lse_d64", "chained_natural_softcap_d64",
    "chained_mlp_silu",
    # GEMMs with a dot in the epilogue
    "epidot_lora_linear", "epidot_mlp_silu", "epidot_lowrank_scaled_bias", "epidot_mlp_nn_linear_bfloat16",
    # SIMT path
    "simt_mem_softmax_bf16_1000x1001_1024", "simt_mem_softmax_f32_64x7_8", "simt_mem_layernorm_f16_4096x1024",
    "simt_mem_rmsnorm_bf16_333x1000", "simt_mem_row_sum_f32_3000x1500_16x256", "simt_mem_col_sum_f16_1000x1001_64x128",
    "simt_mem_argmax_bf16_256", "simt_mem_cumsum_f32_1024", "simt_user_log_softmax_rows",
    "simt_user_layernorm_bwd_dx", "simt_user_cross_entropy_rows", "simt_user_rope_rows",
)
CATEGORIES = ("lowering", "passes", "final verify", "gc", "compile")


def bytecode_dir(directory: Path) -> Path:
    """The directory holding ``<name>.tileirbc`` of every program of :data:`SAMPLE` (exported
    into ``directory`` when neither it nor ``directory/bytecode`` has them all)."""
    for d in (directory / "bytecode", directory):
        if all((d / f"{n}.tileirbc").is_file() for n in SAMPLE):
            return d
    out = directory / "bytecode"
    out.mkdir(parents=True, exist_ok=True)
    sys.path[:0] = [str(ROOT / "tools"), str(ROOT / "benchmarks")]
    import compile_time as ct
    import ptx_identity as pi

    programs = {**pi.chained_programs(), **pi.epidot_programs(), **pi.simt_programs()}
    for name in SAMPLE:
        if not (out / f"{name}.tileirbc").is_file():
            kernel, spec = programs[name]
            ct.export_cutile(name, kernel, spec, out)
    return out


def measure(bc: Path, rounds: int) -> dict:
    """{category: min over rounds of the set's sum} and {pass: min over rounds}, this process's tree."""
    import tileorch
    import tileorch.timing as timing

    timing.time = types.SimpleNamespace(perf_counter=time.process_time)  # the phases on the CPU clock
    datas = [(n, (bc / f"{n}.tileirbc").read_bytes()) for n in SAMPLE]
    for _, data in datas:  # warm: imports, op tables, the verifier's memos
        tileorch.compile(data, None, cache=False, ptxas=False, isolate=False)
    started = [0.0]
    gc_s = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.process_time()
        else:
            gc_s[0] += time.process_time() - started[0]

    gc.callbacks.append(on_gc)
    best: dict[str, float] = {}
    passes_best: dict[str, float] = {}
    try:
        for _ in range(rounds):
            sums: Counter = Counter()
            per_pass: Counter = Counter()
            gc_s[0] = 0.0
            for _, data in datas:
                t0 = time.process_time()
                result = tileorch.compile(data, None, cache=False, ptxas=False, isolate=False)
                sums["compile"] += time.process_time() - t0
                t = result.timings
                sums["lowering"] += t.get("tile-program", 0.0) + t.get("lower", 0.0)
                sums["final verify"] += t.get("lower/verify", 0.0)
                for key, s in t.items():
                    if key.count("/") == 1 and key.split("/")[0] in ("tile-program", "lower") and key != "lower/verify":
                        per_pass[key] += s
            sums["passes"] = sums["lowering"] - sums["final verify"]
            sums["gc"] = gc_s[0]
            for k in CATEGORIES:
                best[k] = min(best.get(k, sums[k]), sums[k])
            for k, s in per_pass.items():
                passes_best[k] = min(passes_best.get(k, s), s)
    finally:
        gc.callbacks.remove(on_gc)
    return {"categories": best, "passes": passes_best, "tree": str(Path(tileorch.__file__).parents[1])}


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bytecode", type=Path, default=DEFAULT_DIR, help="directory of the programs' bytecode")
    ap.add_argument("-n", type=int, default=5, help="measured rounds (per tree with --tree)")
    ap.add_argument("--tree", action="append", default=[], help="a source tree (its src/ directory) to A/B")
    ap.add_argument("--json", help="write the result here")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    bc = bytecode_dir(args.bytecode)
    if args.child:
        print(json.dumps(measure(bc, args.n)))
        return 0
    print(f"load average at start: {_load()}; {len(SAMPLE)} programs from {bc}")
    if not args.tree:
        results = {"(this tree)": measure(bc, args.n)}
    else:
        results = {}
        for _ in range(args.n):
            for tree in args.tree:
                env = {**os.environ, "PYTHONPATH": tree}
                out = subprocess.run([sys.executable, __file__, "--child", "-n", "1", "--bytecode", str(bc)],
                                     env=env, capture_output=True, text=True, check=True).stdout
                r = json.loads(out.strip().splitlines()[-1])
                prev = results.get(tree)
                if prev is None:
                    results[tree] = r
                else:
                    for part in ("categories", "passes"):
                        for k, s in r[part].items():
                            prev[part][k] = min(prev[part].get(k, s), s)
    first = next(iter(results.values()))
    for tree, r in results.items():
        cat = r["categories"]
        line = "  ".join(f"{k} {cat[k]:.3f}" for k in CATEGORIES)
        if r is not first:
            d = cat["lowering"] - first["categories"]["lowering"]
            line += f"  (lowering {d:+.3f} s, {100 * d / first['categories']['lowering']:+.1f}% vs the first)"
        print(f"{tree}: {line}")
    print("per pass (CPU s, min over rounds; the first tree" + (", then the others" if len(results) > 1 else "") + "):")
    for key, s in sorted(first["passes"].items(), key=lambda kv: -kv[1]):
        others = "  ".join(f"{r['passes'].get(key, 0.0):7.3f}" for r in results.values() if r is not first)
        print(f"  {s:7.3f}  {others}  {key}" if others else f"  {s:7.3f}  {key}")
    print(f"load average at the end: {_load()}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rounds": args.n, "sample": list(SAMPLE), "results": results},
                                              indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
