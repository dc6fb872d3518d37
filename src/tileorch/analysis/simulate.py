"""CPU simulation of a protocol: every agent (warp, warp group, CTA of the cluster) and every
in-flight TMA copy is a cooperatively scheduled task; a seeded random scheduler picks which
enabled task moves next, so a run is reproducible from its seed.  A run ends when every task
finished (the functional result is reported), when a property is violated, or when no task can
move (a hang, reported with the same step-by-step trace as ``tileorch check``).

Functional result: for every consumer, the k tiles it consumed in order (tile = round * stages
+ stage of each read, which must be 0, 1, 2, ...); for a Stream-K fix-up, the reduced value of
the output tile (the partials in the order they were added).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from tileorch.analysis import properties as P
from tileorch.analysis.explore import CheckResult
from tileorch.analysis.machine import Machine, Step
from tileorch.analysis.protocol import ConsumerRead, ConsumerWait, Protocol


@dataclass
class Simulation:
    result: CheckResult
    consumed: dict[str, list[int]] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    expected_tiles: dict[str, int] = field(default_factory=dict)

    @property
    def functional_ok(self) -> bool:
        """Did every consumer read tiles 0, 1, ..., n-1 (n = the waits it executed), in
        order?"""
        return self.result.ok and all(
            self.consumed.get(name, []) == list(range(n))
            for name, n in self.expected_tiles.items())


def simulate(protocol: Protocol, values: dict[str, int], seed: int = 0,
             max_steps: int = 1_000_000) -> Simulation:
    """One random interleaving of ``protocol`` with trip counts ``values``."""
    m = Machine(protocol, values)
    m.fuse_invisible = False    # every read is a step: the functional result records them
    rng = random.Random(seed)
    state = m.initial()
    steps: list[Step] = []
    consumed: dict[str, list[int]] = {}
    waits: dict[str, int] = {}
    violation = None
    while len(steps) < max_steps:
        enabled = m.transitions(state)
        if not enabled:
            violation = m.terminal_violation(state)
            break
        choice = rng.choice(enabled)
        out = m.fire(state, choice)
        steps.append(out.step)
        if choice[0] == "agent" and isinstance(out.step.action, ConsumerWait):
            name = m.agents[choice[1]].name
            waits[name] = waits.get(name, 0) + 1
        if choice[0] == "agent" and isinstance(out.step.action, ConsumerRead):
            i = choice[1]
            agent = state[0][i]
            pipe = m.pipe_index[out.step.action.pipe]
            acquired = agent[3][m.slot_base[pipe] + out.step.stage][0]
            tile = (acquired - 1) * m.stages[pipe] + out.step.stage
            consumed.setdefault(m.agents[i].name, []).append(tile)
        if out.violation is not None:
            violation = out.violation
            break
        state = out.state
    result = CheckResult(protocol.name, violation is None, states=len(steps),
                         violation=violation, trace=steps, values=dict(values),
                         agents=tuple(a.name for a in protocol.agents))
    for name in consumed:     # a tile read several times counts once
        consumed[name] = [t for k, t in enumerate(consumed[name])
                          if k == 0 or consumed[name][k - 1] != t]
    outputs = dict(state[6]) if violation is None else {}
    return Simulation(result, consumed, outputs, waits)


def describe(sim: Simulation) -> str:
    """One paragraph: outcome, functional result, or the hang / violation."""
    r = sim.result
    head = f"{r.protocol} (seed run, {len(r.trace)} steps"
    head += ", " + ", ".join(f"{k}={v}" for k, v in sorted(r.values.items())) if r.values else ""
    head += ")"
    if r.violation is not None:
        kind = "HANG" if r.violation.prop in (P.DEADLOCK, P.NAMED_BARRIER_COUNT) else "VIOLATION"
        return f"{head}: {kind}"
    lines = [f"{head}: completed"]
    for name, tiles in sorted(sim.consumed.items()):
        ok = tiles == list(range(sim.expected_tiles.get(name, 0)))
        lines.append(f"  {name} consumed k tiles {tiles} ({'in order' if ok else 'WRONG'})")
    for tile, value in sorted(sim.outputs.items()):
        lines.append(f"  output {tile} = {value}")
    return "\n".join(lines)
