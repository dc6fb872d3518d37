"""``tileorch check``: prove a kernel's pipelines deadlock-free and race-free by exploring every
interleaving of its agents; on failure print a minimal counterexample (and a Perfetto trace)."""

from __future__ import annotations

import argparse
import os
import sys

from tileorch.analysis.counterexample import format_text, violation_origin, write_chrome_trace
from tileorch.analysis.explore import MAX_STATES, ParallelSearchFailed, StateSpaceTooLarge, check
from tileorch.analysis.extract import MAX_ITERATIONS, load  # MAX_ITERATIONS: the largest --iterations


def register(subparsers) -> None:
    p = subparsers.add_parser("check", help="model-check the pipelines of a cutlass kernel",
                              description=__doc__)
    p.add_argument("file", metavar="FILE.mlir")
    p.add_argument("--kernel", help="check only this kernel (func.func name)")
    p.add_argument("--iterations", type=int, metavar="N",
                   help="check every mainloop trip count 1..N (default: 1..2*stages+1)")
    p.add_argument("--trace", metavar="FILE.json",
                   help="write the counterexample as a Chrome/Perfetto trace")
    p.add_argument("--no-reduction", action="store_true",
                   help="explore without partial-order reduction (slower; for cross-checking)")
    p.add_argument("--no-symmetry", action="store_true",
                   help="explore without symmetry reduction (for cross-checking)")
    p.add_argument("--max-states", type=int, metavar="N", default=MAX_STATES,
                   help=f"give up (inconclusive, exit 1) past N states per trip-count instance (default {MAX_STATES})")
    p.add_argument("--jobs", type=int, metavar="N", default=None,
                   help="search the trip-count instances in N processes (default: the CPUs; 1: serial)")
    p.set_defaults(func=run)


def load_protocols(file: str, kernel: str | None, verb: str, iterations: int | None = None) -> list | int:
    """The orchestration protocols of ``file``'s kernels, or the exit status when there is nothing
    to ``verb``: 1 after printing the load errors, 0 after saying no kernel has a protocol."""
    protocols, errors = load(file, kernel, iterations)
    for line in errors:
        print(line, file=sys.stderr)
    if errors:
        return 1
    if not protocols:
        print(f"{file}: no kernel with pipelines, named barriers or fix-ups to {verb}")
        return 0
    return protocols


def _at(proto, file: str) -> str:
    """Where a protocol's verdict is reported: its kernel's ``file:line:col`` (the file alone for a
    protocol without one)."""
    from xdsl.ir import Operation

    from tileorch.diagnostics import location_str

    origin = getattr(proto, "origin", None)
    where = location_str(origin) if isinstance(origin, Operation) else "<unknown>"
    return file if where == "<unknown>" else where


def _violation_at(proto, result, file: str) -> str:
    """``file:line:col`` of a failed check (:func:`violation_origin`), else the kernel's."""
    from xdsl.ir import Operation

    from tileorch.diagnostics import location_str

    origin = violation_origin(result)
    return location_str(origin) if isinstance(origin, Operation) else _at(proto, file)


def too_large(proto, exc: StateSpaceTooLarge) -> str:
    """What a search that reached its state bound says: inconclusive, and what makes the model large."""
    ctas = getattr(proto, "ctas", 1)
    where = f"{len(proto.agents)} agents" + (f" over a cluster of {ctas} CTAs" if ctas > 1 else "")
    return (f"{proto.name}: not checked: the search passed {exc.max_states} states without finishing "
            f"({where}); every CTA's agents interleave, so the states grow with the cluster, the stages and "
            f"the trip counts: check the kernel with a smaller cutlass.cluster_shape or fewer stages, or raise "
            f"--max-states")


def _ranges(values: dict) -> str:
    return ", ".join(f"{k}={min(v)}..{max(v)}" if len(v) > 1 else f"{k}={v[0]}"
                     for k, v in sorted(values.items())) or "fixed trip counts"


def run(args: argparse.Namespace) -> int:
    if args.iterations is not None and args.iterations < 1:
        print("tileorch check: error: --iterations must be at least 1", file=sys.stderr)
        return 2
    if args.iterations is not None and args.iterations > MAX_ITERATIONS:
        # 10**7 ran out of memory (an internal error) before exploring anything
        print(f"tileorch check: error: --iterations must be at most {MAX_ITERATIONS}, got {args.iterations}: what a "
              "run can observe repeats with period 2 x stages in a mainloop's trip count (stages <= 32), so the "
              "default 1..2*stages+1 already covers every larger count (docs/model-checking.md)", file=sys.stderr)
        return 2
    if args.max_states < 1:
        print(f"tileorch check: error: --max-states must be at least 1, got {args.max_states}", file=sys.stderr)
        return 2
    if args.jobs is not None and args.jobs < 1:
        print(f"tileorch check: error: --jobs must be at least 1, got {args.jobs}", file=sys.stderr)
        return 2
    protocols = load_protocols(args.file, args.kernel, "check", args.iterations)
    if isinstance(protocols, int):
        return protocols
    from tileorch.progress import Progress, _count

    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)

    failed = 0
    for proto in protocols:
        # a line every few seconds on large models (states are not known in advance)
        progress = Progress(f"{proto.name}: exploring", unit="states")
        try:
            result = check(proto, por=not args.no_reduction, symmetry=not args.no_symmetry, jobs=jobs,
                           max_states=args.max_states, progress=lambda states, transitions: progress.set(
                               states, note=f"{_count(transitions)} transitions"))
        except StateSpaceTooLarge as exc:  # was an internal error after the 5M states (about 25 minutes)
            print(f"{_at(proto, args.file)}: error: {too_large(proto, exc)}", file=sys.stderr)
            failed += 1
            continue
        except ParallelSearchFailed as exc:  # a worker died: said, never a wait without end
            print(f"{_at(proto, args.file)}: error: not checked: {exc}", file=sys.stderr)
            failed += 1
            continue
        params = {}
        for values, _ in result.instances:
            for k, v in values.items():
                params.setdefault(k, []).append(v)
        params = {k: sorted(set(v)) for k, v in params.items()}
        for note in result.notes:
            print(note)
        for remark in result.remarks:  # a parallel search that ran serially
            print(f"{args.file}: {remark}", file=sys.stderr)
        summary = (f"{result.states} states, {result.transitions} transitions explored in "
                   f"{result.seconds:.2f} s ({_ranges(params)}; {len(proto.agents)} agents)")
        if result.ok:
            print(f"{proto.name}: OK: all properties hold; {summary}")
            if params:
                print(f"{proto.name}: these trip counts cover every larger one: what a run can "
                      "observe repeats with period 2 x stages in a mainloop's count, and 2 tiles "
                      "exercise the state carried between tiles (docs/model-checking.md, "
                      "'Why K rounds cover all rounds')")
            continue
        failed += 1
        print(f"{proto.name}: FAILED; {summary}")
        # the located verdict, as every other rejection reads (the counterexample follows)
        print(f"{_violation_at(proto, result, args.file)}: error: {proto.name}: "
              f"{result.violation.headline() if result.violation else 'check failed'}", file=sys.stderr)
        print(format_text(result))
        if args.trace:
            write_chrome_trace(result, args.trace)
            print(f"trace written to {args.trace}")
    return 1 if failed else 0
