"""Exhaustive exploration of every interleaving of a protocol.

Breadth-first search over the states of :class:`~tileorch.analysis.machine.Machine`, so the
first violation found has a shortest path in the explored graph.  Two reductions keep it fast:

* **partial-order reduction** — when some agent's next transition can never conflict with any
  op the other agents (or in-flight TMA copies) may still execute, only that transition is
  explored (a persistent set of size one; the state graph is acyclic, so no cycle proviso is
  needed).  Every check is local to the transition's footprint or to terminal states, which
  such persistent sets preserve;
* **symmetry reduction** — agents of one CTA with identical programs are interchangeable,
  and so are the CTAs of a cluster when a permutation of their ranks maps the protocol onto
  itself (:mod:`~tileorch.analysis.symmetry`); states are identified up to these
  permutations.

Parametric trip counts are checked one instance at a time, smallest first, so the reported
counterexample also uses the fewest iterations.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from tileorch.analysis import properties as P
from tileorch.analysis.counterexample import replay
from tileorch.analysis.machine import Machine, Step
from tileorch.analysis.protocol import Protocol


@dataclass
class CheckResult:
    """Outcome of checking a protocol: verdict, effort, the counterexample if any, and the
    located assumptions (``notes``, from the protocol) the verdict rests on."""

    protocol: str
    ok: bool
    states: int = 0
    transitions: int = 0
    seconds: float = 0.0
    instances: list[tuple[dict[str, int], int]] = field(default_factory=list)
    violation: P.Violation | None = None
    trace: list[Step] = field(default_factory=list)
    values: dict[str, int] = field(default_factory=dict)
    agents: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass
class _Search:
    violation: P.Violation | None
    path: list[tuple]
    last: tuple[str, int] | None
    states: int
    transitions: int


MAX_STATES = 5_000_000
"""The states a search explores before it gives up (:class:`StateSpaceTooLarge`) by default."""


class StateSpaceTooLarge(RuntimeError):
    """The search reached its state bound without finishing: the check is inconclusive (a model of
    many CTAs, stages or trip counts; the caller says which bound to change)."""

    def __init__(self, max_states: int):
        super().__init__(max_states)
        self.max_states = max_states

    def __str__(self) -> str:
        return f"state space exceeds {self.max_states} states"


def bfs(m: Machine, por: bool = True, max_states: int = MAX_STATES,
        progress: Callable[[int, int], None] | None = None) -> _Search:
    """``progress(states, transitions)`` is called every 4096 new states; past ``max_states``
    states :class:`StateSpaceTooLarge` is raised."""
    init = m.canonical(m.initial())
    parent: dict[tuple, tuple | None] = {init: None}
    queue = deque([init])
    transitions = 0
    first_outputs: tuple | None = None
    successor, canonical, setdefault = m.successor, m.canonical, parent.setdefault

    def path_to(s: tuple) -> list[tuple]:
        out = []
        node: tuple | None = s
        while node is not None:
            out.append(node)
            node = parent[node]
        return out[::-1]

    while queue:
        s = queue.popleft()
        enabled = m.transitions(s)
        if not enabled:
            v = m.terminal_violation(s)
            if v is None and m.protocol.deterministic:
                if first_outputs is None:
                    first_outputs = s[6]
                elif s[6] != first_outputs:
                    v = P.Violation(P.FIXUP_DETERMINISM,
                                    f"this schedule reduces to {dict(s[6])} while another "
                                    f"reduces to {dict(first_outputs)}")
            if v is not None:
                return _Search(v, path_to(s), None, len(parent), transitions)
            continue
        if por:
            enabled = m.persistent_subset(s, enabled)
        for ch in enabled:
            transitions += 1
            nxt, violation = successor(s, ch)
            if violation is not None:
                return _Search(violation, path_to(s), ch, len(parent), transitions)
            t = canonical(nxt)
            n = len(parent)
            setdefault(t, s)                # one hash per lookup
            if len(parent) > n:
                queue.append(t)
                if progress is not None and not len(parent) & 4095:
                    progress(len(parent), transitions)
                if len(parent) > max_states:
                    raise StateSpaceTooLarge(max_states)
    return _Search(None, [], None, len(parent), transitions)


def instances(protocol: Protocol, overrides: dict[str, tuple[int, ...]] | None = None
              ) -> list[dict[str, int]]:
    """Every combination of the protocol's trip-count values, smallest total first."""
    params = dict(protocol.params)
    params.update(overrides or {})
    names = sorted(params)
    combos = [dict(zip(names, vals)) for vals in itertools.product(*(params[n] for n in names))]
    return sorted(combos, key=lambda d: (sum(d.values()), sorted(d.items())))


_FORKED: tuple | None = None
"""(protocol, por, symmetry) of a parallel check, inherited by the forked workers."""


def _search_instance(values: dict[str, int]) -> tuple[int, int, bool]:
    """A forked worker's search of one instance: (states, transitions, violated)."""
    protocol, por, symmetry, max_states = _FORKED
    search = bfs(Machine(protocol, values, symmetry), por=por, max_states=max_states)
    return search.states, search.transitions, search.violation is not None


def _parallel_searches(protocol: Protocol, todo: list[dict[str, int]], por: bool, symmetry: bool,
                       jobs: int, max_states: int = MAX_STATES):
    """The instances' (states, transitions, violated), in ``todo``'s order, searched by ``jobs``
    forked processes; None where fork is not available (the caller searches serially)."""
    import multiprocessing

    global _FORKED
    if jobs <= 1 or len(todo) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return None
    _FORKED = (protocol, por, symmetry, max_states)
    try:
        with multiprocessing.get_context("fork").Pool(min(jobs, len(todo))) as pool:
            # the largest instances (last in order) start first: the workers finish together
            pending = {i: pool.apply_async(_search_instance, (todo[i],)) for i in reversed(range(len(todo)))}
            for i in range(len(todo)):
                yield pending[i].get()
    finally:
        _FORKED = None


def check(protocol: Protocol, overrides: dict[str, tuple[int, ...]] | None = None,
          por: bool = True, symmetry: bool = True,
          progress: Callable[[int, int], None] | None = None, jobs: int = 1,
          max_states: int = MAX_STATES) -> CheckResult:
    """Explore every interleaving of every instance; stop at the first violation.
    ``por`` / ``symmetry`` switch the reductions (for cross-checking); ``progress(states,
    transitions)`` is called periodically with the totals so far (over all instances).
    ``jobs > 1`` searches the instances in that many forked processes; the verdict, the counts
    and the counterexample are the serial ones (results are taken in instance order, and the
    first violating instance is searched again here for its counterexample)."""
    start = time.perf_counter()
    result = CheckResult(protocol.name, True, agents=tuple(a.name for a in protocol.agents),
                         notes=protocol.notes)
    todo = instances(protocol, overrides)
    parallel = (_parallel_searches(protocol, todo, por, symmetry, jobs, max_states)
                if jobs > 1 and len(todo) > 1 else None)
    if parallel is not None:
        for values, (states, transitions, violated) in zip(todo, parallel):
            if violated:  # searched again in this process for the counterexample (same search)
                todo = todo[todo.index(values):]
                break
            result.states += states
            result.transitions += transitions
            result.instances.append((values, states))
            if progress is not None:
                progress(result.states, result.transitions)
        else:
            todo = []
    for values in todo:
        m = Machine(protocol, values, symmetry)
        done = (result.states, result.transitions)
        search = bfs(m, por=por, max_states=max_states, progress=None if progress is None else
                     (lambda s, t, done=done: progress(done[0] + s, done[1] + t)))
        result.states += search.states
        result.transitions += search.transitions
        result.instances.append((values, search.states))
        if search.violation is not None:
            result.ok = False
            result.values = values
            result.violation, result.trace = replay(m, search.path, search.last,
                                                    search.violation)
            break
    result.seconds = time.perf_counter() - start
    return result
