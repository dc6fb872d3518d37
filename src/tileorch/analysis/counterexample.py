"""Counterexamples: the interleaving that leads to a violation, as text and as a Chrome /
Perfetto trace (one track per agent, one slice per executed op).

The search works on symmetry-canonical states; :func:`replay` re-executes the path from the
concrete initial state so the steps name the real agents.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tileorch.analysis import properties as P
from tileorch.analysis.machine import Machine, Step

if TYPE_CHECKING:
    from tileorch.analysis.explore import CheckResult

SLICE_US = 100


def replay(m: Machine, path: list[tuple], last: tuple[str, int] | None,
           violation: P.Violation) -> tuple[P.Violation, list[Step]]:
    """Concrete steps along the canonical ``path``; ``last`` is the violating transition
    taken from the final state (None when the final state itself violates a property)."""
    state = m.initial()
    steps: list[Step] = []
    for target in path[1:]:
        for ch in m.transitions(state):
            out = m.fire(state, ch)
            if out.violation is None and m.canonical(out.state) == target:
                steps.append(out.step)
                state = out.state
                break
        else:
            raise AssertionError("counterexample replay diverged")
    if last is not None:
        for ch in m.transitions(state):
            out = m.fire(state, ch)
            if out.violation is not None and out.violation.prop == violation.prop:
                steps.append(out.step)
                return out.violation, steps
    elif violation.prop != P.FIXUP_DETERMINISM:
        violation = m.terminal_violation(state) or violation
    return violation, steps


def violation_origin(result: CheckResult, default: object = None) -> object:
    """The source op a failed check is reported at: the op of the violating step (for a deadlock,
    the op the first blocked agent waits at), else the last step's op, else ``default`` (the
    kernel).  An op without a source location is skipped for the next candidate."""
    from xdsl.ir import Operation

    from tileorch.diagnostics import location_str

    candidates = [getattr(getattr(result.violation, "op", None), "origin", None)]
    candidates += [getattr(step, "origin", None) for step in reversed(result.trace)]
    for origin in candidates:
        if isinstance(origin, Operation) and location_str(origin) != "<unknown>":
            return origin
    return default


def format_text(result: CheckResult) -> str:
    """The violated property and the numbered interleaving that violates it."""
    v = result.violation
    if v is None:
        return f"{result.protocol}: all properties hold"
    lines = [f"violated property: {v.prop} ({P.DESCRIPTIONS[v.prop]})",
             f"  {v.headline()}"]
    if result.values:
        lines.append("  trip counts: " + ", ".join(f"{k}={n}" for k, n in
                                                   sorted(result.values.items())))
    lines.append(f"counterexample ({len(result.trace)} steps):")
    width = max([len(s.actor) for s in result.trace] + [5])
    for n, s in enumerate(result.trace, 1):
        where = ""
        if s.stage is not None:
            where = f" stage={s.stage}" + (f" phase={s.phase}" if s.phase is not None else "")
        mark = " <-- violation" if n == len(result.trace) and v.prop not in (
            P.DEADLOCK, P.FIXUP_DETERMINISM) else ""
        barrier = f"  [{s.barrier}]" if s.barrier else ""
        lines.append(f"  {n:3}. {s.actor:<{width}}  {s.op}{where}{barrier}{mark}")
    if v.prop == P.DEADLOCK or (not result.trace and v.prop != P.FIXUP_DETERMINISM):
        lines.append("  then no agent can move.")
    return "\n".join(lines)


def chrome_trace(result: CheckResult) -> dict:
    """Chrome/Perfetto ``traceEvents`` JSON: one track (tid) per agent and TMA unit."""
    tracks: dict[str, int] = {name: i for i, name in enumerate(result.agents)}
    events: list[dict] = []
    for n, s in enumerate(result.trace):
        tid = tracks.setdefault(s.actor, len(tracks))
        args = {"step": n + 1}
        if s.stage is not None:
            args["stage"] = s.stage
        if s.phase is not None:
            args["phase"] = s.phase
        if s.barrier:
            args["barrier"] = s.barrier
        events.append({"name": s.op, "cat": "protocol", "ph": "X", "ts": n * SLICE_US,
                       "dur": SLICE_US - 10, "pid": 1, "tid": tid, "args": args})
    if result.violation is not None:
        v = result.violation
        tid = tracks.get(v.agent or "", 0)
        events.append({"name": f"violation: {v.prop}", "cat": "violation", "ph": "i", "s": "g",
                       "ts": len(result.trace) * SLICE_US, "pid": 1, "tid": tid,
                       "args": {"message": v.message}})
    meta = [{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": result.protocol}}]
    meta += [{"name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": {"name": name}}
             for name, tid in tracks.items()]
    return {"traceEvents": meta + events, "displayTimeUnit": "ns"}


def write_chrome_trace(result: CheckResult, path: str) -> None:
    with open(path, "w") as f:
        json.dump(chrome_trace(result), f, indent=1)
