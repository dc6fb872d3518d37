"""Compare ``tileorch schedule --json`` with CUTLASS's own SM90 stream-K scheduler.

Builds ``harness.cu`` (next to this file) against a CUTLASS checkout's headers, then runs both
sides over edge and random configurations and diffs params, grid, workspace size and every
CTA's work sequence.  CUTLASS is not vendored: pass ``--cutlass`` pointing at a directory that
holds ``include/cutlass`` (e.g. ``git archive`` of github.com/NVIDIA/cutlass into /tmp/cutlass).

    python tools/cutlass_crosscheck/compare.py --cutlass /tmp/cutlass --random 3000 --seed 21 --ktile-alignment 1 2
    python tools/cutlass_crosscheck/compare.py --cutlass /tmp/cutlass --no-edge --random 2000 --target sm100

Exit status 0 when every compared configuration agrees.  ``--record FILE`` writes the CUTLASS
outputs (as JSON lines with their configuration) for turning into regression tests.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import random
import subprocess
import sys
from dataclasses import astuple, dataclass
from pathlib import Path

from tileorch.cli import schedule as schedule_cli
from tileorch.schedulers import (schedule_arrays, static_persistent_params, static_persistent_sequence,
                                 streamk_params, workspace_sizes)
from tileorch.schedulers.sm100_streamk import sm100_streamk_params, sm100_work_sequence, sm100_workspace_sizes

HERE = Path(__file__).resolve().parent
RASTERS = ("heuristic", "along_m", "along_n")
REDUCTIONS = ("deterministic", "nondeterministic")
DECOMPOSITIONS = ("heuristic", "data_parallel", "split_k", "stream_k")
CLUSTERS = ((1, 1), (2, 1), (1, 2), (2, 2), (4, 1), (1, 4))


@dataclass(frozen=True)
class Config:
    m: int
    n: int
    k: int
    l: int
    tile: tuple[int, int, int]
    cluster: tuple[int, int]
    sms: int
    splits: int = 1
    max_swizzle: int = 1
    raster: str = "heuristic"
    reduction: str = "deterministic"
    decomposition: str = "heuristic"
    mma_warp_groups: int = 1
    accumulator_bits: int = 32
    ktile_start_alignment: int = 1
    max_active_clusters: int = 0

    def harness_line(self) -> str:
        vals = [self.m, self.n, self.k, self.l, *self.tile, *self.cluster, self.sms, self.splits, self.max_swizzle,
                RASTERS.index(self.raster), REDUCTIONS.index(self.reduction),
                DECOMPOSITIONS.index(self.decomposition), self.mma_warp_groups, self.accumulator_bits,
                self.ktile_start_alignment, self.max_active_clusters]
        return " ".join(map(str, vals))

    def api_kwargs(self) -> dict:
        return dict(splits=self.splits, max_swizzle=self.max_swizzle, raster=self.raster,
                    decomposition=self.decomposition, ktile_start_alignment=self.ktile_start_alignment,
                    **({"max_active_clusters": self.max_active_clusters} if self.max_active_clusters else {}))

    def cli_args(self) -> list[str]:
        return ["--problem", str(self.m), str(self.n), str(self.k), str(self.l),
                "--tile", "x".join(map(str, self.tile)), "--cluster", "x".join(map(str, self.cluster)),
                "--sms", str(self.sms), "--splits", str(self.splits), "--max-swizzle", str(self.max_swizzle),
                "--raster", self.raster, "--reduction", self.reduction, "--decomposition", self.decomposition,
                "--mma-warp-groups", str(self.mma_warp_groups), "--accumulator-bits", str(self.accumulator_bits)]

    def cutlass_can_implement(self) -> bool:
        """``PersistentTileSchedulerSm90StreamK::can_implement``."""
        return self.splits == 1 or self.decomposition in ("heuristic", "split_k")


def build_harness(cutlass: Path, out: Path) -> Path:
    src = HERE / "harness.cu"
    key = hashlib.sha256(src.read_bytes() + str(cutlass.resolve()).encode()).hexdigest()[:12]
    exe = out / f"sk_harness_{key}"
    if not exe.exists():
        out.mkdir(parents=True, exist_ok=True)
        tmp = exe.with_name(f"{exe.name}.{os.getpid()}")
        subprocess.run(["nvcc", "-std=c++17", "-O1", f"-I{cutlass / 'include'}", "-o", str(tmp), str(src)],
                       check=True)
        tmp.replace(exe)
    return exe


def run_cutlass(exe: Path, cfg: Config, target: str = "sm90") -> dict | None:
    """CUTLASS's answer, or ``None`` when CUTLASS's host code crashes (e.g. divides by zero)."""
    proc = subprocess.run([str(exe), *([f"--{target}"] if target != "sm90" else [])],
                          input=cfg.harness_line() + "\n", capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout)


def run_tileorch(cfg: Config, target: str = "sm90") -> dict | None:
    """``tileorch schedule --json`` in-process, or ``None`` when it refuses the configuration.

    SM100, a K-tile start alignment other than 1 and ``max_active_clusters`` have no CLI spelling:
    the same JSON is built from the ``tileorch.schedulers`` API.
    """
    if target != "sm90" or cfg.ktile_start_alignment != 1 or cfg.max_active_clusters:
        return run_api(cfg, target)
    parser = argparse.ArgumentParser()
    schedule_cli.register(parser.add_subparsers())
    args = parser.parse_args(["schedule", *cfg.cli_args(), "--json"])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = args.func(args)
    return json.loads(out.getvalue()) if rc == 0 else None


def run_api(cfg: Config, target: str) -> dict | None:
    problem = (cfg.m, cfg.n, cfg.k, cfg.l)
    try:
        if target == "persistent":
            p = static_persistent_params(problem, cfg.tile, cfg.cluster, cfg.sms, max_swizzle=cfg.max_swizzle,
                                         raster=cfg.raster, max_active_clusters=cfg.max_active_clusters)
            ctas = [[[t.m, t.n, t.l] for t in seq] for seq in static_persistent_sequence(p)]
            return {"grid": list(p.grid), "blocks_per_problem": p.raster.blocks_per_problem, "ctas": ctas}
        if target == "sm100":
            p = sm100_streamk_params(problem, cfg.tile, cfg.cluster, cfg.sms, reduction=cfg.reduction,
                                     **cfg.api_kwargs())
            ws = sm100_workspace_sizes(problem, cfg.tile, cfg.cluster, cfg.sms, mma_warp_groups=cfg.mma_warp_groups,
                                       accumulator_bits=cfg.accumulator_bits, **cfg.api_kwargs())
            ctas = [[w.row() for w in items] for items in sm100_work_sequence(p)]
            return {"params": p.sk.as_json_dict(), "workspace_bytes": ws.total, "grid": list(p.grid), "ctas": ctas}
        p = streamk_params(problem, cfg.tile, cfg.cluster, cfg.sms, reduction=cfg.reduction, **cfg.api_kwargs())
        ws = workspace_sizes(problem, cfg.tile, cfg.cluster, cfg.sms, mma_warp_groups=cfg.mma_warp_groups,
                             accumulator_bits=cfg.accumulator_bits, **cfg.api_kwargs())
    except ValueError:
        return None
    s = schedule_arrays(p)
    rows = s.rows().tolist()
    ctas = [rows[s.cta_ptr[c]:s.cta_ptr[c + 1]] for c in range(s.num_ctas)]
    return {"params": p.as_json_dict(), "workspace_bytes": ws.total, "grid": list(p.grid), "ctas": ctas}


def diff(ours: dict, theirs: dict) -> list[str]:
    problems = []
    for key in theirs.get("params", ()):
        if ours["params"].get(key) != theirs["params"][key]:
            problems.append(f"params.{key}: ours {ours['params'].get(key)} cutlass {theirs['params'][key]}")
    for key in ("workspace_bytes", "grid", "blocks_per_problem"):
        if key in theirs and ours[key] != theirs[key]:
            problems.append(f"{key}: ours {ours[key]} cutlass {theirs[key]}")
    if len(ours["ctas"]) != len(theirs["ctas"]):
        problems.append(f"cta count: ours {len(ours['ctas'])} cutlass {len(theirs['ctas'])}")
    for i, (a, b) in enumerate(zip(ours["ctas"], theirs["ctas"])):
        if a != b:
            problems.append(f"cta {i}: ours {a[:6]}{'...' if len(a) > 6 else ''} "
                            f"cutlass {b[:6]}{'...' if len(b) > 6 else ''}")
            break
    return problems


def edge_configs() -> list[Config]:
    t = (128, 128, 64)
    cfgs = [Config(3456, 3456, 8192, 1, t, (1, 1), 132), Config(3456, 3456, 8192, 1, t, (1, 1), 132,
                                                             decomposition="stream_k")]
    for m in (8, 1, 127, 129, 300, 1000, 4096):
        for k in (8, 64, 65, 511, 512, 513, 1000, 4097):
            for cl in CLUSTERS[:5]:
                for sms in (1, 2, 7, 16, 18, 19, 64, 108, 114, 132):
                    for dec in DECOMPOSITIONS:
                        cfgs.append(Config(m, 512, k, 1, t, cl, sms, decomposition=dec))
    for splits in (2, 3, 4, 7, 16, 200):
        for dec in ("heuristic", "split_k"):
            for k in (64, 640, 4096):
                cfgs.append(Config(1024, 1024, k, 2, t, (2, 1), 132, splits=splits, decomposition=dec))
    for swz in (1, 2, 4, 8):
        for raster in RASTERS:
            for cl in CLUSTERS:
                cfgs.append(Config(2000, 3000, 4096, 1, t, cl, 132, max_swizzle=swz, raster=raster,
                                   decomposition="stream_k"))
                cfgs.append(Config(700, 5000, 3000, 3, (256, 128, 64), cl, 114, max_swizzle=swz, raster=raster))
    # stream-K boundary smoothing (the 8-iteration rule) bites hardest for short K loops
    for kt in range(9, 34):
        for mt, nt in ((1, 1), (3, 5), (7, 9), (12, 12), (16, 33), (25, 40)):
            for sms in (7, 20, 64, 132):
                for cl in ((1, 1), (2, 1), (2, 2)):
                    for dec in ("heuristic", "stream_k"):
                        cfgs.append(Config(mt * 128 - 3, nt * 128, kt * 64, 1, t, cl, sms, decomposition=dec))
    return cfgs


def random_config(rng: random.Random, align_choices: tuple[int, ...] = (1,), active_clusters: bool = False) -> Config:
    def extent(big: int) -> int:
        r = rng.random()
        if r < 0.2:
            return rng.randint(1, 256)
        if r < 0.8:
            return rng.randint(1, big)
        return rng.choice([128, 256, 1024, 2048, 4096, 8192]) + rng.choice([0, 0, 1, -1, 8, 64])

    tile = (rng.choice([64, 128, 256]), rng.choice([64, 128, 192, 256]), rng.choice([32, 64, 128]))
    sms = rng.choice([rng.randint(1, 132), rng.randint(1, 132), 132, 114, 108, 16, 20, 36, 148, 160])
    decomposition = rng.choice(DECOMPOSITIONS)
    splits, align = 1, rng.choice(align_choices)
    if rng.random() < 0.3:
        splits = rng.choice([2, 3, 4, 5, 8, 16, rng.randint(2, 300)])
        if rng.random() < 0.9:
            decomposition = rng.choice(["heuristic", "split_k"])
    return Config(extent(8192), extent(8192), extent(16384), rng.choice([1, 1, 1, 2, 3, 8]), tile,
                  rng.choice(CLUSTERS), sms, splits, rng.choice([0, 1, 2, 3, 4, 8, 16]), rng.choice(RASTERS),
                  rng.choice(REDUCTIONS), decomposition, rng.choice([1, 2]), rng.choice([16, 32, 64]),
                  align, rng.choice([0, rng.randint(1, 80)]) if active_clusters else 0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cutlass", type=Path, required=True, help="directory holding include/cutlass")
    ap.add_argument("--build-dir", type=Path, default=Path("/tmp/tileorch_cutlass_harness"))
    ap.add_argument("--random", type=int, default=1000, help="number of random configurations")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-edge", action="store_true", help="skip the fixed edge-case grid")
    ap.add_argument("--max-ctas-items", type=int, default=400_000,
                    help="skip configurations whose CUTLASS schedule has more work items than this")
    ap.add_argument("--target", choices=["sm90", "sm100", "persistent"], default="sm90",
                    help="sm100: PersistentTileSchedulerSm100StreamK (compared through the Python API); "
                         "persistent: the SM90 static persistent scheduler (grid and tile walk)")
    ap.add_argument("--ktile-alignment", type=int, nargs="+", default=[1], choices=[1, 2],
                    help="K-tile start alignments to sample in random configurations (2 is API-only)")
    ap.add_argument("--max-active-clusters", action="store_true",
                    help="also sample KernelHardwareInfo::max_active_clusters (API-only)")
    ap.add_argument("--record", type=Path, help="write each config and CUTLASS's JSON here (JSON lines)")
    ap.add_argument("--show", type=int, default=20, help="mismatching configurations to print")
    args = ap.parse_args(argv)

    exe = build_harness(args.cutlass, args.build_dir)
    rng = random.Random(args.seed)
    cfgs = ([] if args.no_edge else edge_configs()) + [random_config(rng, tuple(args.ktile_alignment), args.max_active_clusters)
                                                             for _ in range(args.random)]
    stats = {"compared": 0, "mismatch": 0, "both_refuse": 0, "refused_by_can_implement": 0,
             "only_cutlass_refuses": 0, "only_tileorch_refuses": 0, "skipped_large": 0}
    shown = 0
    record = args.record.open("w") if args.record else None
    for cfg in cfgs:
        if args.target != "persistent" and not cfg.cutlass_can_implement():
            ours = run_tileorch(cfg, args.target)
            stats["refused_by_can_implement"] += 1
            if ours is not None:
                stats["mismatch"] += 1
                print(f"MISMATCH {cfg}: CUTLASS can_implement refuses, tileorch accepts")
            continue
        theirs = run_cutlass(exe, cfg, args.target)
        if theirs is not None and sum(len(c) for c in theirs["ctas"]) > args.max_ctas_items:
            stats["skipped_large"] += 1
            continue
        ours = run_tileorch(cfg, args.target)
        if ours is None and theirs is not None and 0 in theirs["grid"]:
            stats["empty_grid_refused"] = stats.get("empty_grid_refused", 0) + 1  # no whole cluster fits
            continue
        if theirs is None or ours is None:
            key = ("both_refuse" if theirs is None and ours is None
                   else "only_cutlass_refuses" if theirs is None else "only_tileorch_refuses")
            stats[key] += 1
            if key == "only_tileorch_refuses" and shown < args.show:
                shown += 1
                print(f"REFUSED {cfg}: cutlass grid {theirs['grid']}")
            continue
        stats["compared"] += 1
        kind = ("persistent" if "params" not in theirs else "stream_k" if theirs["params"]["sk_units"]
                else "split_k" if theirs["params"]["splits"] > 1 else "data_parallel")
        stats[f"cutlass_chose_{kind}"] = stats.get(f"cutlass_chose_{kind}", 0) + 1
        if record:
            record.write(json.dumps({"config": list(astuple(cfg)), "cutlass": theirs}) + "\n")
        problems = diff(ours, theirs)
        if problems:
            stats["mismatch"] += 1
            if shown < args.show:
                shown += 1
                print(f"MISMATCH {cfg}")
                for p in problems[:6]:
                    print(f"    {p}")
    if record:
        record.close()
    print(json.dumps(stats))
    return 1 if stats["mismatch"] or stats["only_cutlass_refuses"] or stats["only_tileorch_refuses"] else 0


if __name__ == "__main__":
    sys.exit(main())
