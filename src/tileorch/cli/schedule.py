"""``tileorch schedule``: CUTLASS SM90 stream-K schedule of one GEMM, as a summary, JSON or a plot."""

from __future__ import annotations

import argparse
import json
import sys

from tileorch.schedulers import (DecompositionMode, RasterOrderOptions, ReductionMode, schedule_arrays, streamk_params,
                                 workspace_sizes)
from tileorch.schedulers.summary import summarize

# CUTLASS's reduction workspace holds partial accumulators of sizeof_bits(ElementAccumulator)
# bits: half, float/int32 or double accumulators
ACCUMULATOR_BITS = (16, 32, 64)
# the most work items (pieces of output tiles) materialised for --json, --plot and the load-balance
# figures: about 300 bytes and 1 microsecond each
MAX_WORK_ITEMS = 1 << 21


def _shape(text: str, n: int, what: str) -> tuple[int, ...]:
    parts = text.lower().split("x")
    try:
        vals = tuple(int(v) for v in parts)
    except ValueError:
        vals = ()
    if len(vals) != n or min(vals) < 1:
        raise argparse.ArgumentTypeError(f"{what} must be {n} positive integers joined by 'x', got {text!r}")
    return vals


def _int_at_least(low: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}")
        return value
    return parse


def _accumulator_bits(text: str) -> int:
    if text not in {str(b) for b in ACCUMULATOR_BITS}:
        raise argparse.ArgumentTypeError(f"expected the bit width of the accumulator element, one of "
                                         f"{', '.join(map(str, ACCUMULATOR_BITS))}, got {text!r}")
    return int(text)


def register(subparsers) -> None:
    p = subparsers.add_parser("schedule", help="show CUTLASS's SM90 stream-K schedule of a GEMM",
                              description=__doc__)
    p.add_argument("--problem", nargs="+", type=int, required=True, metavar="EXTENT",
                   help="M N K [L] (L defaults to 1)")
    p.add_argument("--tile", type=lambda t: _shape(t, 3, "--tile"), default=(128, 128, 64), help="MxNxK")
    p.add_argument("--cluster", type=lambda t: _shape(t, 2, "--cluster"), default=(1, 1), help="MxN")
    p.add_argument("--sms", type=_int_at_least(1), default=132)
    p.add_argument("--splits", type=_int_at_least(1), default=1)
    p.add_argument("--max-swizzle", type=_int_at_least(0), default=1)
    p.add_argument("--raster", choices=[o.value for o in RasterOrderOptions], default="heuristic")
    p.add_argument("--reduction", choices=[o.value for o in ReductionMode], default="deterministic")
    p.add_argument("--decomposition", choices=[o.value for o in DecompositionMode], default="heuristic")
    p.add_argument("--mma-warp-groups", type=_int_at_least(1), default=1)
    p.add_argument("--accumulator-bits", type=_accumulator_bits, default=32, help="16, 32 (default) or 64")
    p.add_argument("--json", action="store_true", help="print params, workspace, grid and every CTA's work")
    p.add_argument("--plot", metavar="FILE.png", help="draw the schedule")
    p.set_defaults(func=run)


def work_item_bound(params) -> int:
    """An upper bound on the work items :func:`schedule_arrays` materialises for ``params``:
    every unit, an idle slot per CTA, and the extra output tiles a stream-K unit's K range spans."""
    grid_size = params.grid[0] * params.grid[1] * params.grid[2]
    tiles_per_sk_unit = params.k_tiles_per_sk_big_unit // params.k_tiles_per_output_tile + 1
    return params.total_units + grid_size + params.sk_units * tiles_per_sk_unit


def run(args: argparse.Namespace) -> int:
    if len(args.problem) not in (3, 4) or min(args.problem) < 1:
        return _error("--problem takes three or four positive extents: M N K [L]")
    problem = tuple(args.problem) + ((1,) if len(args.problem) == 3 else ())
    try:
        params = streamk_params(problem, args.tile, args.cluster, args.sms, splits=args.splits,
                                max_swizzle=args.max_swizzle, raster=args.raster, reduction=args.reduction,
                                decomposition=args.decomposition)
        ws = workspace_sizes(problem, args.tile, args.cluster, args.sms, splits=args.splits,
                             max_swizzle=args.max_swizzle, raster=args.raster, decomposition=args.decomposition,
                             mma_warp_groups=args.mma_warp_groups, accumulator_bits=args.accumulator_bits)
    except ValueError as exc:
        return _error(str(exc))
    items = work_item_bound(params)
    if items > MAX_WORK_ITEMS and (args.json or args.plot):
        return _error(f"this schedule has up to {items} work items, more than the {MAX_WORK_ITEMS} that "
                      f"{'--json' if args.json else '--plot'} lists; use a larger --tile, or drop "
                      f"{'--json' if args.json else '--plot'} for the summary")
    sched = schedule_arrays(params) if items <= MAX_WORK_ITEMS else None
    summ = summarize(sched, problem, args.tile) if sched is not None else None
    if args.plot:
        from tileorch.schedulers.plot import plot_schedules

        try:
            plot_schedules([(_title(problem, args), sched, summ)], args.plot)
        except (OSError, ValueError) as exc:  # unwritable path, or an image format matplotlib lacks
            return _error(f"cannot write {args.plot}: {getattr(exc, 'strerror', None) or exc}")
    if args.json:
        rows = sched.rows().tolist()
        ctas = [rows[sched.cta_ptr[c]:sched.cta_ptr[c + 1]] for c in range(sched.num_ctas)]
        json.dump({"params": params.as_json_dict(), "workspace_bytes": ws.total, "grid": list(params.grid),
                   "ctas": ctas}, sys.stdout, separators=(",", ":"))
        sys.stdout.write("\n")
        return 0
    rp = params.raster
    ctas = params.grid[0] * params.grid[1] * params.grid[2]
    print(_title(problem, args))
    print(f"decomposition {params.decomposition.value} (requested {args.decomposition}), raster "
          f"{rp.raster.value}, swizzle {1 << rp.log_swizzle}, reduction {params.reduction_mode.value}")
    print(f"tiles {rp.blocks_m}x{rp.blocks_n}x{rp.blocks_l} (padded), {params.k_tiles_per_output_tile} "
          f"K tiles per output tile")
    if summ is not None:
        print(f"grid {params.grid[0]}x{params.grid[1]}x{params.grid[2]} = {summ.ctas} CTAs, {summ.waves} waves, "
              f"{summ.units} units, {summ.items} work items ({summ.fixup_items} with fix-up)")
    else:
        print(f"grid {params.grid[0]}x{params.grid[1]}x{params.grid[2]} = {ctas} CTAs, {params.total_units} "
              f"units; per-CTA work not computed (up to {items} work items, more than {MAX_WORK_ITEMS})")
    if ctas == 0:
        print(f"warning: {args.sms} SMs hold no whole {'x'.join(map(str, args.cluster))} cluster; the grid is empty "
              "(as CUTLASS computes it) and cannot be launched")
    if params.sk_units:
        print(f"stream-K: {params.sk_tiles} tiles over {params.sk_units} units in {params.sk_groups} groups, "
              f"{params.k_tiles_per_sk_unit} K tiles per unit; data-parallel: "
              f"{params.units_per_problem - params.sk_units} tiles")
    if params.splits > 1:
        print(f"split-K: {params.splits} splits of {params.k_tiles_per_sk_unit} K tiles "
              f"(+1 for the first {params.big_units})")
    print(f"workspace {ws.total} bytes (reduction {ws.reduction}, barrier {ws.barrier})")
    if summ is not None:
        print(f"balance {summ.balance:.4f} (useful {summ.useful_k_iterations} K-iterations; busiest CTA "
              f"{summ.busiest_cta_k_iterations})")
    return 0


def _title(problem, args) -> str:
    m, n, k, l = problem
    return (f"GEMM {m}x{n}x{k} L={l}, tile {'x'.join(map(str, args.tile))}, cluster "
            f"{'x'.join(map(str, args.cluster))}, {args.sms} SMs")


def _error(msg: str) -> int:
    print(f"tileorch schedule: error: {msg}", file=sys.stderr)
    return 2
